# /// rlgpt-skill
# name = "place_stone"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "face a free tile and place a stone"
# made_in = "session 21, iteration 1"
# [record]
# calls = 1397
# steps = 80
# end_reasons = {"returned" = 72, "episode ended" = 1}
# tasks = {"eat_plant" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 0, "episodes" = 128, "best" = 0.0}}
# ///
def act(ctx):
    yield from ctx.face((3, 4))
    yield from ctx.place('stone')
