# /// rlgpt-skill
# name = "collect_coal"
# world = "craftax"
# version = 2
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest coal and do until 1 coal is held"
# made_in = "session 14, iteration 3"
# [record]
# calls = 1456
# steps = 1221
# end_reasons = {"returned" = 144, "error" = 38, "episode ended" = 2, "abandoned" = 1}
# tasks = {"collect_coal" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 53, "episodes" = 92, "best" = 0.5781}, "eat_plant" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 0, "episodes" = 128, "best" = 0.0}}
# ///
def act(ctx):
    coal = ctx.nearest('coal')
    if coal is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(coal, dig=True)):
        return False
    yield from ctx.face(coal)
    while not (yield from ctx.collect('wood_pickaxe')):
        pass
    yield from ctx.collect('coal')
