# /// rlgpt-skill
# name = "eat_cow"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "eat a cow"
# made_in = "session 28, iteration 1"
# [record]
# calls = 223
# steps = 0
# end_reasons = {}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 31, "episodes" = 64, "best" = 0.4844}}
# ///
def act(ctx):
    cow = ctx.nearest('cow')
    if cow is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(cow)):
        return False
    yield from ctx.face(cow)
    for _ in range(3):
        yield Action.DO
    return ctx.has('cow')
