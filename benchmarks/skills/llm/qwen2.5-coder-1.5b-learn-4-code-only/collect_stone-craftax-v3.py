# /// rlgpt-skill
# name = "collect_stone"
# world = "craftax"
# version = 3
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest stone and do until stone is in the inventory"
# made_in = "session 9, iteration 3"
# [record]
# calls = 1616
# steps = 1687
# end_reasons = {"returned" = 166, "error" = 122, "episode ended" = 32, "abandoned" = 2}
# tasks = {"collect_stone" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 68, "episodes" = 96, "best" = 0.8438}}
# ///
def act(ctx):
    if not (yield from ctx.collect('stone')):
        return False
    yield from ctx.face('stone')
    for _ in range(1):
        yield Action.DO
    return ctx.view.drink > 0
