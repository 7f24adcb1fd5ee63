# /// rlgpt-skill
# name = "collect_wood"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "walk to the nearest tree and do until wood is in the inventory"
# made_in = "session 1, iteration 1"
# [record]
# calls = 24610
# steps = 14127
# end_reasons = {"returned" = 3096, "episode ended" = 125, "abandoned" = 3}
# tasks = {"collect_wood" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 58, "episodes" = 61, "best" = 0.9531}, "place_table" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "make_wood_pickaxe" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "make_wood_sword" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "collect_stone" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 59, "best" = 0.9062}, "place_stone" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 59, "best" = 0.9062}, "make_stone_pickaxe" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 60, "best" = 0.9062}, "make_stone_sword" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 60, "best" = 0.9062}, "place_furnace" = {"measure" = "success_rate", "evaluations" = 7, "successes" = 53, "episodes" = 443, "best" = 0.9062}, "collect_coal" = {"measure" = "success_rate", "evaluations" = 6, "successes" = 171, "episodes" = 384, "best" = 0.5625}, "collect_iron" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 54, "episodes" = 189, "best" = 0.3438}, "make_iron_pickaxe" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 11, "episodes" = 191, "best" = 0.1094}, "make_iron_sword" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 3, "episodes" = 128, "best" = 0.0469}}
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
