# /// rlgpt-skill
# name = "collect_stone"
# world = "craftax"
# version = 2
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest stone and do until stone is in the inventory"
# made_in = "session 9, iteration 2"
# [record]
# calls = 1852
# steps = 1852
# end_reasons = {"returned" = 192, "error" = 143, "episode ended" = 32, "abandoned" = 3}
# tasks = {"collect_stone" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 68, "episodes" = 98, "best" = 0.8281}}
# ///
def act(ctx):
    if not (yield from ctx.collect('stone')):
        return False
    yield from ctx.face('stone')
    yield Action.DO
    return ctx.view.drink > 0
