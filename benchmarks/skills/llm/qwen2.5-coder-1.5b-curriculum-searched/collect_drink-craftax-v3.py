# /// rlgpt-skill
# name = "collect_drink"
# world = "craftax"
# version = 3
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "walk to the nearest water block and do until 1 water is collected"
# made_in = "session 27, iteration 3"
# [record]
# calls = 949
# steps = 0
# end_reasons = {}
# tasks = {"collect_drink" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 40, "episodes" = 64, "best" = 0.625}, "eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 31, "episodes" = 64, "best" = 0.4844}}
# ///
def act(ctx):
    for _ in range(3):
        yield from ctx.collect('water')
        yield from ctx.make('wood_pickaxe')
        yield from ctx.make('wood_sword')
