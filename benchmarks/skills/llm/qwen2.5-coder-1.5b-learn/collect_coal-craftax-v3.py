# /// rlgpt-skill
# name = "collect_coal"
# world = "craftax"
# version = 3
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest coal and do until 1 coal is held"
# made_in = "session 18, iteration 1"
# [record]
# calls = 1429
# steps = 0
# end_reasons = {}
# tasks = {"collect_coal" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 0, "episodes" = 64, "best" = 0.0}}
# ///
def act(ctx):
    coal = ctx.nearest('coal')
    if coal is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(coal)):
        return False
    yield from ctx.face(coal)
    while not (yield from ctx.collect('wood_pickaxe')):
        pass
    while not (yield from ctx.collect('coal')):
        pass
