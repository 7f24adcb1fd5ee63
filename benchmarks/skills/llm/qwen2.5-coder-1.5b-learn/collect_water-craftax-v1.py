# /// rlgpt-skill
# name = "collect_water"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest water tile and do until 1 drink is held"
# made_in = "session 8, iteration 1"
# [record]
# calls = 1136
# steps = 8044
# end_reasons = {"returned" = 1045, "episode ended" = 84, "abandoned" = 7}
# tasks = {"wake_up" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 59, "best" = 0.9062}}
# ///
def act(ctx):
    if not (yield from ctx.collect('water')):
        return False
    yield from ctx.make('wood_pickaxe')
    yield from ctx.make('stone_pickaxe')
    return True
