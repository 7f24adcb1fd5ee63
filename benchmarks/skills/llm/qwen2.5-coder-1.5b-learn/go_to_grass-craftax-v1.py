# /// rlgpt-skill
# name = "go_to_grass"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest grass and face it"
# made_in = "session 2, iteration 1"
# [record]
# calls = 47360
# steps = 11132
# end_reasons = {"returned" = 6466, "episode ended" = 48, "abandoned" = 2}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 31, "successes" = 105, "episodes" = 1984, "best" = 0.2812}, "defeat_zombie" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 59, "best" = 0.9219}, "collect_iron" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 5, "episodes" = 192, "best" = 0.0469}, "collect_drink" = {"measure" = "success_rate", "evaluations" = 6, "successes" = 228, "episodes" = 384, "best" = 0.875}, "collect_sapling" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "collect_coal" = {"measure" = "success_rate", "evaluations" = 9, "successes" = 310, "episodes" = 574, "best" = 0.625}, "survive_night" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 0, "episodes" = 64, "best" = 0.0}}
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
    return ctx.has("wood")
