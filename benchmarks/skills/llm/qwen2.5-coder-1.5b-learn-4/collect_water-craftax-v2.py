# /// rlgpt-skill
# name = "collect_water"
# world = "craftax"
# version = 2
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest water tile and do until water is in the inventory"
# made_in = "session 6, iteration 2"
# [record]
# calls = 3616
# steps = 12672
# end_reasons = {"returned" = 3529, "episode ended" = 78, "abandoned" = 9}
# tasks = {"wake_up" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 0, "episodes" = 64, "best" = 0.0}}
# ///
def act(ctx):
    water = ctx.nearest("water")
    if water is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(water)):
        return False
    yield from ctx.face(water)
    for _ in range(3):
        yield Action.DO
    return ctx.view.drink > 0
