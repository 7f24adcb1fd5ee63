# /// rlgpt-skill
# name = "go_to_cow"
# world = "craftax"
# version = 4
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "walk to the nearest cow and do until it is eaten"
# made_in = "session 28, iteration 2"
# [record]
# calls = 574
# steps = 0
# end_reasons = {}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 59, "best" = 0.9062}}
# ///
def act(ctx):
    cow = ctx.nearest('cow')
    if cow is None:
        return False
    if not (yield from ctx.go_to(cow)):
        return False
    yield from ctx.do('eat')
    return True
