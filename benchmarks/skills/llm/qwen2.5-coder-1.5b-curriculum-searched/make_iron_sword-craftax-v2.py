# /// rlgpt-skill
# name = "make_iron_sword"
# world = "craftax"
# version = 2
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "within a few tiles of table and furnace, use the make_iron_sword action (uses 1 wood, 1 stone, 1 coal, 1 iron)"
# made_in = "session 26, iteration 1"
# [record]
# calls = 52
# steps = 0
# end_reasons = {}
# tasks = {"make_iron_sword" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 0, "episodes" = 64, "best" = 0.0}}
# ///
def act(ctx):
    table = ctx.nearest("table")
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.make('wood_sword')):
        return False
    if not (yield from ctx.make('iron_sword')):
        return False
    return (yield from ctx.place('iron_sword'))
