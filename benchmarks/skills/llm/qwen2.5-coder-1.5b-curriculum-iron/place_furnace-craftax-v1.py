# /// rlgpt-skill
# name = "place_furnace"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "face a free tile and place a furnace"
# made_in = "session 13, iteration 1"
# [record]
# calls = 1115
# steps = 0
# end_reasons = {}
# tasks = {"place_furnace" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 59, "best" = 0.9062}, "make_iron_pickaxe" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 11, "episodes" = 191, "best" = 0.1094}, "make_iron_sword" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 3, "episodes" = 128, "best" = 0.0469}}
# ///
def act(ctx):
    # Find a free tile (grass, sand, path) to place the furnace
    free_tile = ctx.nearest('grass', 'sand', 'path')
    if free_tile:
        # Face the free tile
        yield from ctx.face(free_tile)
        # Place the furnace
        yield from ctx.place('furnace')
    else:
        # No free tile found, return None
        return None
