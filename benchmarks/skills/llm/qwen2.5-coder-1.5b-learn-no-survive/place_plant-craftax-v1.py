# /// rlgpt-skill
# name = "place_plant"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "face a free tile and place a sapling"
# made_in = "session 17, iteration 1"
# [record]
# calls = 58
# steps = 0
# end_reasons = {}
# tasks = {"place_plant" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}}
# ///
def act(ctx):
    yield from ctx.face((3, 4))
    yield from ctx.place('plant')
