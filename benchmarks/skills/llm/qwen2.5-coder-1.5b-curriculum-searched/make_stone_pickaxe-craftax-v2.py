# /// rlgpt-skill
# name = "make_stone_pickaxe"
# world = "craftax"
# version = 2
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "make a stone pickaxe near the table"
# made_in = "session 23, iteration 1"
# [record]
# calls = 111
# steps = 0
# end_reasons = {}
# tasks = {"collect_iron" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 17, "episodes" = 64, "best" = 0.2656}}
# ///
def act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.make('stone_pickaxe')):
        return False
    if not (yield from ctx.make('iron_pickaxe')):
        return False
    if not (yield from ctx.place('stone_pickaxe')):
        return False
    if not (yield from ctx.place('table')):
        return False
    return (yield from ctx.place('iron_pickaxe'))
