# /// rlgpt-skill
# name = "go_to_plant"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "walk to the nearest ripe plant and do until it is eaten"
# made_in = "session 25, iteration 1"
# [record]
# calls = 4242
# steps = 0
# end_reasons = {}
# tasks = {"eat_plant" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 0, "episodes" = 192, "best" = 0.0}}
# ///
def act(ctx):
    plant = ctx.nearest("plant")
    if plant is None:
        return False
    if not (yield from ctx.go_to(plant)):
        return False
    yield from ctx.collect("plant")
    return True