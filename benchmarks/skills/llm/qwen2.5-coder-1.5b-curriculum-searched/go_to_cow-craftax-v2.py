# /// rlgpt-skill
# name = "go_to_cow"
# world = "craftax"
# version = 2
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "find a cow, hit it until it is eaten"
# made_in = "session 16, iteration 2"
# [record]
# calls = 4996
# steps = 2601
# end_reasons = {"returned" = 2556, "error" = 2429, "episode ended" = 9, "abandoned" = 2}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 46, "episodes" = 60, "best" = 0.7656}}
# ///
def act(ctx):
    # Find a cow
    cow = ctx.nearest("cow")
    if cow is None:
        return False
    # Walk to the grass where the cow is located
    if not (yield from ctx.go_to(cow, max_steps=30, dig=False)):
        return False
    # Hit the cow
    yield from ctx.do()
    return True