# /// rlgpt-skill
# name = "collect_water"
# world = "craftax"
# version = 3
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest water tile and do until water is in the inventory"
# made_in = "session 6, iteration 3"
# [record]
# calls = 5017
# steps = 20489
# end_reasons = {"returned" = 4897, "episode ended" = 101, "abandoned" = 19}
# tasks = {"wake_up" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 0, "episodes" = 64, "best" = 0.0}, "collect_stone" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 63, "episodes" = 133, "best" = 0.4844}, "collect_coal" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 0, "episodes" = 64, "best" = 0.0}}
# ///
def act(ctx):
    water = ctx.nearest('water')
    if water is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(water, dig=True)):
        return False
    yield from ctx.face(water)
    for _ in range(3):
        yield Action.DO
    return ctx.view.drink > 0
