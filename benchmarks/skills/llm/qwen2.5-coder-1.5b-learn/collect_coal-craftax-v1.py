# /// rlgpt-skill
# name = "collect_coal"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest coal and do until 1 coal is held"
# made_in = "session 14, iteration 1"
# [record]
# calls = 1782
# steps = 810
# end_reasons = {"returned" = 116, "episode ended" = 6, "abandoned" = 1}
# tasks = {"collect_coal" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 90, "episodes" = 192, "best" = 0.5938}}
# ///
def act(ctx):
    coal = ctx.nearest("coal")
    if coal is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(coal)):
        return False
    yield from ctx.face(coal)
    for _ in range(1):
        yield Action.DO
    return ctx.has("coal")
