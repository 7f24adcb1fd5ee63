# /// rlgpt-skill
# name = "survive"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "fight an adjacent mob, shelter and sleep at night, drink and eat when low"
# made_in = "session 15, iteration 1"
# [record]
# calls = 16586
# steps = 0
# end_reasons = {"returned" = 16586}
# tasks = {"survive_night" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 0, "episodes" = 128, "best" = 0.0}}
# ///
def act(ctx):
    if not (yield from ctx.collect('wood')):
        return False
    yield from ctx.make('wood_pickaxe')
    yield from ctx.make('stone_pickaxe')
    yield from ctx.collect('stone')
    yield from ctx.collect('stone')
    yield from ctx.collect('stone')
    yield from ctx.collect('stone')
    return True
