# /// rlgpt-skill
# name = "collect_wood"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest tree and do until 4 wood are held"
# made_in = "session 4, iteration 1"
# [record]
# calls = 13499
# steps = 27455
# end_reasons = {"returned" = 3879, "episode ended" = 114, "abandoned" = 23}
# tasks = {"collect_iron" = {"measure" = "success_rate", "evaluations" = 4, "successes" = 7, "episodes" = 256, "best" = 0.0469}, "place_table" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 59, "best" = 0.9219}, "make_wood_pickaxe" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "collect_stone" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "make_stone_sword" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 60, "best" = 0.9062}, "collect_coal" = {"measure" = "success_rate", "evaluations" = 8, "successes" = 148, "episodes" = 476, "best" = 0.5938}, "survive_night" = {"measure" = "success_rate", "evaluations" = 5, "successes" = 1, "episodes" = 320, "best" = 0.0156}, "eat_plant" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 0, "episodes" = 64, "best" = 0.0}}
# ///
def act(ctx):
    tree = ctx.nearest("tree")
    if tree is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(tree)):
        return False
    yield from ctx.face(tree)
    for _ in range(4):
        yield Action.DO
    return ctx.has("wood")
