# /// rlgpt-skill
# name = "defeat_zombie"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "close in on the nearest zombie and hit it until it dies"
# made_in = "session 20, iteration 1"
# [record]
# calls = 0
# steps = 0
# end_reasons = {}
# tasks = {}
# ///
def act(ctx):
    zombie = ctx.nearest("zombie")
    if zombie is None:
        return False
    if not (yield from ctx.go_to(zombie)):
        return False
    yield from ctx.collect("zombie")
    return True