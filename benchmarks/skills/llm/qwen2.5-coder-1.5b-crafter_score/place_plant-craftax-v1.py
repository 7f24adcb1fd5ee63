# /// rlgpt-skill
# name = "place_plant"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "face a free tile and place a plant"
# made_in = "session 1, iteration 1"
# [record]
# calls = 0
# steps = 0
# end_reasons = {}
# tasks = {"crafter_score" = {"measure" = "crafter_score", "evaluations" = 1, "successes" = 0, "episodes" = 16, "best" = 5.5837}}
# ///
def act(ctx):
    if ctx.is_near('table') and ctx.is_near('furnace'):
        yield from ctx.shelter()
    else:
        yield from ctx.place('plant')
