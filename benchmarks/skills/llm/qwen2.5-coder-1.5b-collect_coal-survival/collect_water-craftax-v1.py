# /// rlgpt-skill
# name = "collect_water"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "walk to the nearest water and do until 1 drink is held"
# made_in = "session 1, iteration 1"
# [record]
# calls = 455
# steps = 0
# end_reasons = {}
# tasks = {"collect_drink" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 60, "best" = 0.9062}}
# ///
def act(ctx):
    water = ctx.nearest("water")
    if water is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(water)):
        return False
    yield from ctx.face(water)
    for _ in range(1):
        if ctx.view.drink >= 0 and ctx.view.drink < 9:
            yield Action.DO
            break
