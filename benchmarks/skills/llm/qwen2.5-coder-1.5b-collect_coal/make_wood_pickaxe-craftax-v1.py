# /// rlgpt-skill
# name = "make_wood_pickaxe"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "make a wooden pickaxe near the table"
# made_in = "reused from a library in session 2, iteration 1"
# [record]
# calls = 1144
# steps = 479
# end_reasons = {"returned" = 241, "error" = 56, "episode ended" = 1}
# tasks = {"collect_coal" = {"measure" = "success_rate", "evaluations" = 8, "successes" = 279, "episodes" = 512, "best" = 0.5625}}
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
