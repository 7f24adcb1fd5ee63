# /// rlgpt-skill
# name = "collect_water"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest water and do until water is in the inventory"
# made_in = "session 6, iteration 1"
# [record]
# calls = 1972
# steps = 12428
# end_reasons = {"returned" = 1524, "error" = 402, "episode ended" = 34, "abandoned" = 11, "step budget" = 1}
# tasks = {"wake_up" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 0, "episodes" = 64, "best" = 0.0}}
# ///
def act(ctx):
    if not (yield from ctx.collect('water')):
        return False
    yield from ctx.face('water')
    for _ in range(3):
        yield Action.DO
    return ctx.view.drink > 0
