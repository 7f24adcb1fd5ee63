# /// rlgpt-skill
# name = "place_stone"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "face a free tile and place a stone"
# made_in = "session 6, iteration 1"
# [record]
# calls = 58
# steps = 0
# end_reasons = {}
# tasks = {"place_stone" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 59, "best" = 0.9062}}
# ///
def act(ctx):
    # Find a free tile (grass, sand, path) to place the stone
    free_tile = ctx.nearest('grass', 'sand', 'path')
    if free_tile:
        # Face the free tile
        yield from ctx.face(free_tile)
        # Place the stone
        yield from ctx.place('stone')
    else:
        # No free tile found, return None
        return None
