# /// rlgpt-skill
# name = "make_wood_pickaxe"
# world = "craftax"
# version = 2
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "make a wood pickaxe near the table"
# made_in = "session 1, iteration 3"
# [record]
# calls = 0
# steps = 0
# end_reasons = {}
# tasks = {"make_stone_pickaxe" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 8, "episodes" = 9, "best" = 0.8594}}
# ///
def act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table, max_steps=30, dig=False)):
        return False
    return (yield from ctx.make('wood_pickaxe'))
