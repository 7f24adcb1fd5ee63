# /// rlgpt-skill
# name = "survive"
# world = "craftax"
# version = 2
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "fight an adjacent mob, shelter and sleep at night, drink and eat when low"
# made_in = "session 15, iteration 3"
# [record]
# calls = 17042
# steps = 44258
# end_reasons = {"returned" = 16881, "episode ended" = 159, "step budget" = 2}
# tasks = {"survive_night" = {"measure" = "success_rate", "evaluations" = 4, "successes" = 6, "episodes" = 256, "best" = 0.0312}, "eat_plant" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 0, "episodes" = 64, "best" = 0.0}}
# ///
def act(ctx):
    if not (yield from ctx.collect('water')):
        return False
    yield from ctx.make('wood_pickaxe')
    yield from ctx.make('stone_pickaxe')
    yield from ctx.make('iron_pickaxe')
    return True
