# /// rlgpt-skill
# name = "make_wood_pickaxe"
# world = "craftax"
# version = 2
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "make a wood pickaxe near the table"
# made_in = "session 21, iteration 2"
# [record]
# calls = 0
# steps = 0
# end_reasons = {}
# tasks = {}
# ///
def act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    yield from ctx.collect('sapling')
    yield from ctx.make('wood_pickaxe')
