# /// rlgpt-skill
# name = "place_table"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "face a free tile and place a table"
# made_in = "reused from a library in session 2, iteration 1"
# [record]
# calls = 3179
# steps = 562
# end_reasons = {"returned" = 291}
# tasks = {"collect_coal" = {"measure" = "success_rate", "evaluations" = 8, "successes" = 279, "episodes" = 512, "best" = 0.5625}}
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
