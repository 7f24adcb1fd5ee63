# /// rlgpt-skill
# name = "eat_cow"
# world = "craftax"
# version = 2
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "eat a cow"
# made_in = "session 28, iteration 2"
# [record]
# calls = 572
# steps = 0
# end_reasons = {}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 59, "best" = 0.9062}}
# ///
def act(ctx):
    cow = ctx.nearest('cow')
    if cow is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(cow)):
        return False
    yield from ctx.face(cow)
    yield from ctx.do()
    return ctx.has('cow')
