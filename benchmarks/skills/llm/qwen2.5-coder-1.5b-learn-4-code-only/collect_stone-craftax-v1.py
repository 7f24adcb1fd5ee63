# /// rlgpt-skill
# name = "collect_stone"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest stone and do until stone is in the inventory"
# made_in = "session 9, iteration 1"
# [record]
# calls = 1370
# steps = 2045
# end_reasons = {"returned" = 162, "error" = 136, "episode ended" = 35, "abandoned" = 1}
# tasks = {"collect_stone" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 86, "episodes" = 128, "best" = 0.8594}}
# ///
def act(ctx):
    if not (yield from ctx.collect('stone')):
        return False
    yield from ctx.face('stone')
    yield Action.DO
    return ctx.view.stone in ctx.inventory
