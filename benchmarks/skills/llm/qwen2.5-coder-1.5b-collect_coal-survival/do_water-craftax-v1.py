# /// rlgpt-skill
# name = "do_water"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "do on the faced block (collect water)"
# made_in = "session 1, iteration 1"
# [record]
# calls = 450
# steps = 0
# end_reasons = {}
# tasks = {"collect_drink" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 60, "best" = 0.9062}}
# ///
def act(ctx):
    if not (yield from ctx.collect('water')):
        return False
    yield Action.DO
