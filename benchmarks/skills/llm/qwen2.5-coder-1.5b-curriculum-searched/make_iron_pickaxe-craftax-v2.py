# /// rlgpt-skill
# name = "make_iron_pickaxe"
# world = "craftax"
# version = 2
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "make a iron pickaxe near the table"
# made_in = "session 23, iteration 2"
# [record]
# calls = 0
# steps = 0
# end_reasons = {}
# tasks = {"collect_iron" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 37, "episodes" = 125, "best" = 0.3438}}
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
    return (yield from ctx.place('iron_pickaxe'))
