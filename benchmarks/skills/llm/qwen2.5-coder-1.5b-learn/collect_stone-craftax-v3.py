# /// rlgpt-skill
# name = "collect_stone"
# world = "craftax"
# version = 3
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "make a stone pickaxe near the table and use it to make a stone sword"
# made_in = "session 16, iteration 2"
# [record]
# calls = 1049
# steps = 0
# end_reasons = {}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 10, "episodes" = 64, "best" = 0.1562}}
# ///
def act(ctx):
    if not (yield from ctx.collect('stone')):
        return False
    yield from ctx.make('wood_pickaxe')
    yield from ctx.make('stone_sword')
