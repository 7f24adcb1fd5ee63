# /// rlgpt-skill
# name = "shelter"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "dig or wall in until ctx.enclosed(); then yield Action.SLEEP"
# made_in = "session 1, iteration 1"
# [record]
# calls = 0
# steps = 0
# end_reasons = {}
# tasks = {"crafter_score" = {"measure" = "crafter_score", "evaluations" = 1, "successes" = 0, "episodes" = 16, "best" = 5.5837}}
# ///
def act(ctx):
    while not ctx.enclosed() and not ctx.is_near("table") and not ctx.is_near("furnace"):
        yield from ctx.explore(8)
    yield from ctx.shelter()
