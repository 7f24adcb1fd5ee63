# /// rlgpt-skill
# name = "collect_drink"
# world = "craftax"
# version = 2
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "collect water from the nearest block and drink it"
# made_in = "session 27, iteration 2"
# [record]
# calls = 649
# steps = 0
# end_reasons = {}
# tasks = {"collect_drink" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 38, "episodes" = 62, "best" = 0.6094}}
# ///
def act(ctx):
    for _ in range(3):
        yield from ctx.collect('water')
        yield from ctx.make('iron_pickaxe')
        yield from ctx.make('iron_sword')
