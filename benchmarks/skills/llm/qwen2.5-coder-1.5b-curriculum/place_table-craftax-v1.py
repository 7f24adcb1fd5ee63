# /// rlgpt-skill
# name = "place_table"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "face a free tile and place a table"
# made_in = "session 2, iteration 1"
# [record]
# calls = 7626
# steps = 0
# end_reasons = {}
# tasks = {"place_table" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "make_wood_pickaxe" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "make_wood_sword" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "collect_stone" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 59, "best" = 0.9062}, "place_stone" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 59, "best" = 0.9062}, "make_stone_pickaxe" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 60, "best" = 0.9062}, "make_stone_sword" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 60, "best" = 0.9062}, "place_furnace" = {"measure" = "success_rate", "evaluations" = 7, "successes" = 53, "episodes" = 443, "best" = 0.9062}, "collect_coal" = {"measure" = "success_rate", "evaluations" = 5, "successes" = 171, "episodes" = 320, "best" = 0.5625}}
# ///
def act(ctx):
    # Find a free tile (grass, sand, path) to place the table
    free_tile = ctx.nearest('grass', 'sand', 'path')
    if free_tile:
        # Face the free tile
        yield from ctx.face(free_tile)
        # Place the table
        yield from ctx.place('table')
    else:
        # No free tile found, return None
        return None
