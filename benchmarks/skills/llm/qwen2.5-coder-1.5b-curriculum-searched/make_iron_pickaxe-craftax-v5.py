# /// rlgpt-skill
# name = "make_iron_pickaxe"
# world = "craftax"
# version = 5
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "make an iron pickaxe near the table and furnace"
# made_in = "session 24, iteration 3"
# [record]
# calls = 22
# steps = 0
# end_reasons = {}
# tasks = {"make_iron_pickaxe" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 7, "episodes" = 64, "best" = 0.1094}}
# ///
def act(ctx):
    table = ctx.nearest('table')
    furnace = ctx.nearest('furnace')
    if table is None or furnace is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.go_to(furnace)):
        return False
    return (yield from ctx.make('iron_pickaxe'))
