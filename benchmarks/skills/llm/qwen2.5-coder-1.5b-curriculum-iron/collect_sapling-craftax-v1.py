# /// rlgpt-skill
# name = "collect_sapling"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "use do on grass (each hit gives one with some chance)"
# made_in = "session 17, iteration 1"
# [record]
# calls = 1520
# steps = 14783
# end_reasons = {"returned" = 1424, "episode ended" = 77, "abandoned" = 19}
# tasks = {"collect_sapling" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "place_plant" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}}
# ///
def act(ctx):
    grass = ctx.nearest('grass')
    if grass is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(grass)):
        return False
    yield from ctx.face(grass)
    for _ in range(10):
        yield Action.DO
    return ctx.has('sapling')
