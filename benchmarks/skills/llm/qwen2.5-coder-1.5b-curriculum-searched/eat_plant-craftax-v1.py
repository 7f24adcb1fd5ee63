# /// rlgpt-skill
# name = "eat_plant"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "eat a ripe plant"
# made_in = "session 25, iteration 1"
# [record]
# calls = 540
# steps = 0
# end_reasons = {}
# tasks = {"eat_plant" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 0, "episodes" = 64, "best" = 0.0}}
# ///
def act(ctx):
    for _ in range(3):
        yield from ctx.collect('stone')
        yield from ctx.make('stone_pickaxe')
        yield from ctx.make('stone_sword')
