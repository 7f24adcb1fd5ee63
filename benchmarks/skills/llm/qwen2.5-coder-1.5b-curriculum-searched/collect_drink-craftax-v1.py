# /// rlgpt-skill
# name = "collect_drink"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "do facing drink, once (needs 1 drink in the inventory)"
# made_in = "session 27, iteration 1"
# [record]
# calls = 196
# steps = 0
# end_reasons = {}
# tasks = {"collect_drink" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 40, "episodes" = 64, "best" = 0.625}}
# ///
def act(ctx):
    for _ in range(3):
        yield from ctx.collect('stone')
        yield from ctx.make('stone_pickaxe')
        yield from ctx.make('stone_sword')
