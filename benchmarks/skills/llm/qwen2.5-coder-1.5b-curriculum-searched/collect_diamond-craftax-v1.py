# /// rlgpt-skill
# name = "collect_diamond"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "`do` facing diamond, once (needs 1 iron_pickaxe in the inventory)"
# made_in = "session 20, iteration 1"
# [record]
# calls = 0
# steps = 0
# end_reasons = {}
# tasks = {}
# ///
def act(ctx):
    while True:
        if not (yield from ctx.collect('diamond')):
            return False
        yield from ctx.face('diamond')
        yield Action.DO
        if ctx.has('diamond'):
            return True
