# /// rlgpt-skill
# name = "collect_stone"
# world = "craftax"
# version = 2
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "make a stone pickaxe near the table"
# made_in = "session 16, iteration 1"
# [record]
# calls = 1121
# steps = 0
# end_reasons = {}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 10, "episodes" = 64, "best" = 0.1562}}
# ///
def act(ctx):
    if not (yield from ctx.collect('stone')):
        return False
    yield from ctx.make('wood_pickaxe')
    yield from ctx.make('stone_pickaxe')
    return True
