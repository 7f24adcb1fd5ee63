# /// rlgpt-skill
# name = "make_stone_pickaxe"
# world = "craftax"
# version = 10
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "make a stone pickaxe near the table"
# made_in = "session 26, iteration 2"
# [record]
# calls = 124
# steps = 0
# end_reasons = {}
# tasks = {"make_iron_sword" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 3, "episodes" = 64, "best" = 0.0469}}
# ///
def act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.make('stone_pickaxe')):
        return False
    if not (yield from ctx.make('stone')):
        return False
    if not (yield from ctx.place('stone_pickaxe')):
        return False
