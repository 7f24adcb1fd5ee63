# /// rlgpt-skill
# name = "make_stone_pickaxe"
# world = "craftax"
# version = 3
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "make a stone pickaxe near the table"
# made_in = "session 23, iteration 2"
# [record]
# calls = 112
# steps = 0
# end_reasons = {}
# tasks = {"collect_iron" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 15, "episodes" = 61, "best" = 0.25}}
# ///
def act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table, max_steps=10)):
        return False
    if not (yield from ctx.make('stone_pickaxe')):
        return False
    return (yield from ctx.place('stone_pickaxe'))
