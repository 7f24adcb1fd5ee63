# /// rlgpt-skill
# name = "go_to_grass"
# world = "craftax"
# version = 5
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest grass and collect a sapling until it is held"
# made_in = "session 20, iteration 3"
# [record]
# calls = 988
# steps = 0
# end_reasons = {}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 15, "episodes" = 45, "best" = 0.3438}}
# ///
def act(ctx):
    grass = ctx.nearest('grass')
    if grass is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(grass, max_steps=500)):
        return False
    yield from ctx.face(grass)
    for _ in range(1):
        yield Action.DO
    return ctx.has('sapling')
