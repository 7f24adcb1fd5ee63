# /// rlgpt-skill
# name = "place_table"
# world = "craftax"
# version = 2
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "face a free tile and place a table"
# made_in = "session 21, iteration 2"
# [record]
# calls = 0
# steps = 0
# end_reasons = {}
# tasks = {}
# ///
def act(ctx):
    yield from ctx.face((32, 32))
    yield from ctx.place('table')
