# /// rlgpt-skill
# name = "collect_drink"
# world = "craftax"
# version = 2
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "face a free tile and place a drink"
# made_in = "session 11, iteration 1"
# [record]
# calls = 1267
# steps = 0
# end_reasons = {}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 15, "episodes" = 64, "best" = 0.2344}}
# ///
def act(ctx):
    if not (yield from ctx.collect('water')):
        return False
    yield from ctx.make('wood_pickaxe')
    yield from ctx.make('stone_pickaxe')
    yield from ctx.make('wood_sword')
