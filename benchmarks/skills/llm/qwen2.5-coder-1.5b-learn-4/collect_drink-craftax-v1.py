# /// rlgpt-skill
# name = "collect_drink"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "find water, face it and drink"
# made_in = "session 4, iteration 3"
# [record]
# calls = 12270
# steps = 2169
# end_reasons = {"returned" = 11954, "episode ended" = 232, "error" = 81, "abandoned" = 3}
# tasks = {"collect_drink" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 80, "episodes" = 128, "best" = 0.625}, "collect_stone" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 16, "episodes" = 35, "best" = 0.4531}}
# ///
def act(ctx):
    if not (yield from ctx.collect('water')):
        return False
    yield from ctx.face('water')
    yield Action.DO
    return ctx.view.drink > 0
