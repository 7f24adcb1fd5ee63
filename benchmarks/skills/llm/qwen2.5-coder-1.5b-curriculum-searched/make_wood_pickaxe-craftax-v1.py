# /// rlgpt-skill
# name = "make_wood_pickaxe"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "make a wooden pickaxe near the table"
# made_in = "session 3, iteration 1"
# [record]
# calls = 3114
# steps = 0
# end_reasons = {}
# tasks = {"make_wood_pickaxe" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "collect_stone" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 59, "best" = 0.9062}, "place_stone" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 59, "best" = 0.9062}, "make_stone_pickaxe" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 60, "best" = 0.9062}, "make_stone_sword" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 60, "best" = 0.9062}, "place_furnace" = {"measure" = "success_rate", "evaluations" = 7, "successes" = 53, "episodes" = 443, "best" = 0.9062}, "collect_coal" = {"measure" = "success_rate", "evaluations" = 5, "successes" = 171, "episodes" = 320, "best" = 0.5625}, "make_iron_pickaxe" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 11, "episodes" = 191, "best" = 0.1094}, "make_iron_sword" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 3, "episodes" = 128, "best" = 0.0469}}
# ///
def act(ctx):
    table = ctx.nearest("table")
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.make('wood_pickaxe')):
        return False
    return (yield from ctx.place('wood_pickaxe'))
