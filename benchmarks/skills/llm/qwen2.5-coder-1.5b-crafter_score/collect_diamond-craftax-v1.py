# /// rlgpt-skill
# name = "collect_diamond"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "walk to the nearest diamond and do until 1 diamond is held"
# made_in = "session 1, iteration 1"
# [record]
# calls = 0
# steps = 0
# end_reasons = {}
# tasks = {"crafter_score" = {"measure" = "crafter_score", "evaluations" = 1, "successes" = 0, "episodes" = 16, "best" = 5.5837}}
# ///
def act(ctx):
    if not (yield from ctx.collect('diamond')):
        return False
    return True
