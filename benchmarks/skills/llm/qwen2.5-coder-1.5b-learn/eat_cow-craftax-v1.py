# /// rlgpt-skill
# name = "eat_cow"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "find and eat a cow, avoiding zombies and skeletons"
# made_in = "session 20, iteration 3"
# [record]
# calls = 631
# steps = 0
# end_reasons = {}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 15, "episodes" = 45, "best" = 0.3438}}
# ///
def act(ctx):
    if not (yield from ctx.collect('tree')):
        return False
    yield from ctx.place('stone')
    return True
