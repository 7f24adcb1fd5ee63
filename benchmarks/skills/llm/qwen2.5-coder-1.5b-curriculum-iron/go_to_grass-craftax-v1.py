# /// rlgpt-skill
# name = "go_to_grass"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "walk to the nearest grass and do until 1 grass is held"
# made_in = "session 22, iteration 1"
# [record]
# calls = 1400
# steps = 0
# end_reasons = {}
# tasks = {"defeat_zombie" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 110, "episodes" = 124, "best" = 0.9062}}
# ///
def act(ctx):
    grass = ctx.nearest("grass")
    if grass is None:
        return False
    if not (yield from ctx.go_to(grass)):
        return False
    yield from ctx.collect("grass")
    return True