# /// rlgpt-skill
# name = "eat_cow"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "find a cow and hit it until it is eaten"
# made_in = "session 1, iteration 1"
# [record]
# calls = 0
# steps = 0
# end_reasons = {}
# tasks = {"crafter_score" = {"measure" = "crafter_score", "evaluations" = 1, "successes" = 0, "episodes" = 16, "best" = 5.5837}}
# ///
def act(ctx):
    while True:
        if not (yield from ctx.collect('cow')):
            return False
        yield from ctx.face('cow')
        yield Action.DO
        if ctx.has('cow'):
            return True
