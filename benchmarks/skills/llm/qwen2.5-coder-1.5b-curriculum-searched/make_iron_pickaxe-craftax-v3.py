# /// rlgpt-skill
# name = "make_iron_pickaxe"
# world = "craftax"
# version = 3
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "make an iron pickaxe near the table and furnace"
# made_in = "session 24, iteration 1"
# [record]
# calls = 39
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
    if not (yield from ctx.make('coal')):
        return False
    if not (yield from ctx.make('iron_pickaxe')):
        return False
    return (yield from ctx.place('iron_pickaxe'))
