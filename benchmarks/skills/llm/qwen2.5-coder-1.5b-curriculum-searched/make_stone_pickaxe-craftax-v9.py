# /// rlgpt-skill
# name = "make_stone_pickaxe"
# world = "craftax"
# version = 9
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "within a few tiles of table, use the make_stone_pickaxe action (uses 1 wood, 1 stone)"
# made_in = "session 26, iteration 1"
# [record]
# calls = 108
# steps = 0
# end_reasons = {}
# tasks = {"make_iron_sword" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 0, "episodes" = 64, "best" = 0.0}}
# ///
def act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table, max_steps=30, dig=False)):
        return False
    if not (yield from ctx.collect('wood')):
        return False
    if not (yield from ctx.collect('stone')):
        return False
    return (yield from ctx.make('stone_pickaxe'))
