# /// rlgpt-skill
# name = "make_wood_pickaxe"
# world = "craftax"
# version = 2
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "within a few tiles of table, use the make_wood_pickaxe action (uses 1 wood)"
# made_in = "session 20, iteration 1"
# [record]
# calls = 425
# steps = 0
# end_reasons = {}
# tasks = {"collect_iron" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 54, "episodes" = 189, "best" = 0.3438}}
# ///
def act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.make('wood_pickaxe')):
        return False
    if not (yield from ctx.make('place_stone', 1)):
        return False
    return (yield from ctx.place('wood_pickaxe'))
