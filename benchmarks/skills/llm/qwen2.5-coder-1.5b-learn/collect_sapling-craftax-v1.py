# /// rlgpt-skill
# name = "collect_sapling"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest grass and do until 1 sapling is held"
# made_in = "session 17, iteration 1"
# [record]
# calls = 3480
# steps = 538
# end_reasons = {"error" = 58, "episode ended" = 3, "returned" = 1}
# tasks = {"place_plant" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "eat_cow" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 36, "episodes" = 128, "best" = 0.3594}, "eat_plant" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 0, "episodes" = 128, "best" = 0.0}}
# ///
def act(ctx):
    if not (yield from ctx.collect('grass')):
        return False
    yield from ctx.place('sapling')
    return True
