# /// rlgpt-skill
# name = "collect_water"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "walk to the nearest water block and do until 1 water is collected"
# made_in = "session 22, iteration 1"
# [record]
# calls = 263
# steps = 0
# end_reasons = {}
# tasks = {"defeat_zombie" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 110, "episodes" = 124, "best" = 0.9062}}
# ///
def act(ctx):
    for _ in range(3):
        yield from ctx.collect('stone')
        yield from ctx.make('stone_pickaxe')
        yield from ctx.make('stone_sword')
