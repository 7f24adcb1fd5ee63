# /// rlgpt-skill
# name = "place_plant"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "face a free tile (grass) and use the place_plant action (uses 1 sapling)"
# made_in = "session 20, iteration 1"
# [record]
# calls = 0
# steps = 0
# end_reasons = {}
# tasks = {}
# ///
def act(ctx):
    # Find a free tile (grass, sand, path) to place the plant
    free_tile = ctx.nearest('grass')
    if free_tile:
        # Face the free tile
        yield from ctx.face(free_tile)
        # Place the plant
        yield from ctx.place('plant')
    else:
        # No free tile found, return None
        return None
