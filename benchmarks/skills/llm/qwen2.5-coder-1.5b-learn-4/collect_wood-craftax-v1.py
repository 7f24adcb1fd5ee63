# /// rlgpt-skill
# name = "collect_wood"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest tree and do until wood is in the inventory"
# made_in = "session 1, iteration 1"
# [record]
# calls = 7957
# steps = 26121
# end_reasons = {"returned" = 5957, "episode ended" = 140, "abandoned" = 22}
# tasks = {"collect_wood" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 58, "episodes" = 61, "best" = 0.9531}, "place_table" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 59, "best" = 0.9219}, "make_wood_pickaxe" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "collect_stone" = {"measure" = "success_rate", "evaluations" = 6, "successes" = 222, "episodes" = 322, "best" = 0.8594}, "collect_coal" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 15, "episodes" = 64, "best" = 0.2344}}
# ///
def act(ctx):
    tree = ctx.nearest("tree")
    if tree is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(tree)):
        return False
    yield from ctx.face(tree)
    for _ in range(1):
        yield Action.DO
    return ctx.has("wood")
