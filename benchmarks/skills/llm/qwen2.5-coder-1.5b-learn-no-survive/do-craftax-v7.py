# /// rlgpt-skill
# name = "do"
# world = "craftax"
# version = 7
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "use do on the grass to collect a sapling"
# made_in = "session 7, iteration 1"
# [record]
# calls = 5281
# steps = 0
# end_reasons = {}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 27, "episodes" = 192, "best" = 0.1562}}
# ///
def act(ctx):
    grass = ctx.nearest('grass')
    if grass is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(grass)):
        return False
    yield from ctx.face(grass)
    for _ in range(1):
        yield Action.DO
    return True