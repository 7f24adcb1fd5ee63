# /// rlgpt-skill
# name = "do"
# world = "craftax"
# version = 5
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "use do on the grass to collect a sapling"
# made_in = "session 6, iteration 1"
# [record]
# calls = 0
# steps = 0
# end_reasons = {}
# tasks = {}
# ///
def act(ctx):
    if not (yield from ctx.collect('grass')):
        return False
    yield from ctx.face('grass')
    for _ in range(2):
        yield Action.DO
    return True
