# /// rlgpt-skill
# name = "eat_plant"
# world = "craftax"
# version = 4
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "eat a ripe plant"
# made_in = "session 25, iteration 3"
# [record]
# calls = 1198
# steps = 0
# end_reasons = {}
# tasks = {"eat_plant" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 0, "episodes" = 64, "best" = 0.0}}
# ///
def act(ctx):
    ripe_plant = ctx.nearest('ripe_plant')
    if ripe_plant is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(ripe_plant)):
        return False
    yield from ctx.face(ripe_plant)
    for _ in range(3):
        yield Action.DO
    return ctx.has('ripe_plant')
