# /// rlgpt-skill
# name = "place_stone"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "face a free tile and place a stone"
# made_in = "session 1, iteration 1"
# [record]
# calls = 0
# steps = 0
# end_reasons = {}
# tasks = {"crafter_score" = {"measure" = "crafter_score", "evaluations" = 1, "successes" = 0, "episodes" = 16, "best" = 5.5837}}
# ///
def act(ctx):
    # Find a free tile (grass, sand, path, water, lava) and place a stone
    while True:
        free_tile = ctx.nearest('grass', 'sand', 'path', 'water', 'lava')
        if free_tile:
            yield from ctx.place('stone')
            return
        else:
            yield from ctx.explore(steps=8, dig=False)
