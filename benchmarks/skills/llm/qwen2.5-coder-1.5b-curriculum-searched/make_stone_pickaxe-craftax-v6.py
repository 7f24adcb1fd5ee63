# /// rlgpt-skill
# name = "make_stone_pickaxe"
# world = "craftax"
# version = 6
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "make a stone pickaxe near the table and furnace"
# made_in = "session 24, iteration 2"
# [record]
# calls = 124
# steps = 0
# end_reasons = {}
# tasks = {"make_iron_pickaxe" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 1, "episodes" = 63, "best" = 0.0156}}
# ///
def act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table, max_steps=30, dig=False)):
        return False
    if not (yield from ctx.make('stone_pickaxe')):
        return False
    if not (yield from ctx.go_to(table, max_steps=30, dig=False)):
        return False
    if not (yield from ctx.make('stone_pickaxe')):
        return False
    return (yield from ctx.place('stone_pickaxe'))
