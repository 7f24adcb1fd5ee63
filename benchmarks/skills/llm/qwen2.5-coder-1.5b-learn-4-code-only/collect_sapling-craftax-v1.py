# /// rlgpt-skill
# name = "collect_sapling"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "use do on grass (each hit gives one with some chance)"
# made_in = "session 3, iteration 1"
# [record]
# calls = 589
# steps = 605
# end_reasons = {"returned" = 525, "episode ended" = 58, "abandoned" = 6}
# tasks = {"collect_sapling" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}}
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
