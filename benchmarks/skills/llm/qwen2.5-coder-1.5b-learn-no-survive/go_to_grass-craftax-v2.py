# /// rlgpt-skill
# name = "go_to_grass"
# world = "craftax"
# version = 2
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest grass and do until 1 grass is held"
# made_in = "session 7, iteration 1"
# [record]
# calls = 3123
# steps = 0
# end_reasons = {}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 7, "episodes" = 64, "best" = 0.1094}}
# ///
def act(ctx):
    grass = ctx.nearest('grass')
    if grass is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(grass, max_steps=10)):
        return False
    yield from ctx.face(grass)
    for _ in range(1):
        yield Action.DO
    return ctx.has('wood')
