# /// rlgpt-skill
# name = "eat_plant"
# world = "craftax"
# version = 2
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "eat a ripe plant"
# made_in = "session 25, iteration 2"
# [record]
# calls = 2504
# steps = 0
# end_reasons = {}
# tasks = {"eat_plant" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 0, "episodes" = 64, "best" = 0.0}}
# ///
def act(ctx):
    plant = ctx.nearest("plant")
    if plant is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(plant)):
        return False
    yield from ctx.face(plant)
    for _ in range(3):
        yield Action.DO
    return ctx.has("sapling")
