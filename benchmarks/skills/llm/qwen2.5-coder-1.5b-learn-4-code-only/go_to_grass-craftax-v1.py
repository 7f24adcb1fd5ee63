# /// rlgpt-skill
# name = "go_to_grass"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest grass tile and do until a zombie is killed"
# made_in = "session 5, iteration 1"
# [record]
# calls = 2856
# steps = 0
# end_reasons = {"returned" = 1438}
# tasks = {"defeat_zombie" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 55, "episodes" = 60, "best" = 0.9219}, "collect_stone" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 63, "episodes" = 133, "best" = 0.4844}, "collect_coal" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 0, "episodes" = 64, "best" = 0.0}}
# ///
def act(ctx):
    if not (yield from ctx.collect('wood')):
        return False
    yield from ctx.face('wood')
    yield Action.DO
    return ctx.view.drink > 0
