# /// rlgpt-skill
# name = "go_to_cow"
# world = "craftax"
# version = 3
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "walk to the nearest cow and do until 1 cow is eaten"
# made_in = "session 16, iteration 3"
# [record]
# calls = 2582
# steps = 6685
# end_reasons = {"returned" = 1836, "loop budget" = 415, "error" = 296, "episode ended" = 27, "abandoned" = 5, "step budget" = 3}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 15, "episodes" = 19, "best" = 0.7656}}
# ///
def act(ctx):
    # Find the nearest cow
    cow = ctx.nearest("cow")
    if cow is None:
        return False
    # Move to the cow
    if not (yield from ctx.go_to(cow)):
        return False
    # Collect materials
    while not (yield from ctx.collect("stone", max_steps=500)):
        pass
    # Hit the cow
    if not (yield from ctx.do()):
        return False
    return True