# /// rlgpt-skill
# name = "go_to_cow"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "walk to the nearest cow and do until it is eaten"
# made_in = "session 16, iteration 1"
# [record]
# calls = 4720
# steps = 2716
# end_reasons = {"error" = 2363, "returned" = 2339, "episode ended" = 17, "abandoned" = 1}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 50, "episodes" = 64, "best" = 0.7812}}
# ///
def act(ctx):
    cow = ctx.nearest('cow')
    if cow is None:
        return False
    if not (yield from ctx.go_to(cow, max_steps=500, dig=False)):
        return False
    yield from ctx.do('eat')
    return True