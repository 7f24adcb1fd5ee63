# /// rlgpt-skill
# name = "make_stone_pickaxe"
# world = "craftax"
# version = 5
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "make a stone pickaxe near the table and furnace"
# made_in = "session 24, iteration 1"
# [record]
# calls = 109
# steps = 0
# end_reasons = {}
# tasks = {"make_iron_pickaxe" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 3, "episodes" = 64, "best" = 0.0469}}
# ///
def act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.make('stone_pickaxe')):
        return False
    if not (yield from ctx.make('wood_pickaxe')):
        return False
    if not (yield from ctx.make('coal')):
        return False
    if not (yield from ctx.place('stone_pickaxe')):
        return False
    return (yield from ctx.make('iron_pickaxe'))
