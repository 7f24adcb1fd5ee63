# /// rlgpt-skill
# name = "go_to_grass"
# world = "craftax"
# version = 4
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest grass and do until 1 sapling is held"
# made_in = "session 20, iteration 2"
# [record]
# calls = 2752
# steps = 100
# end_reasons = {"returned" = 71}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 23, "episodes" = 64, "best" = 0.3594}, "eat_plant" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 0, "episodes" = 128, "best" = 0.0}}
# ///
def act(ctx):
    grass = ctx.nearest("grass")
    if grass is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(grass)):
        return False
    yield from ctx.face(grass)
    for _ in range(1):
        yield Action.DO
    return ctx.has("sapling")
