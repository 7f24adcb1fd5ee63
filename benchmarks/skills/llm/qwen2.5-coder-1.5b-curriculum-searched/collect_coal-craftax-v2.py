# /// rlgpt-skill
# name = "collect_coal"
# world = "craftax"
# version = 2
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "walk to the nearest coal and do until 1 coal is held"
# made_in = "session 12, iteration 2"
# [record]
# calls = 4601
# steps = 0
# end_reasons = {}
# tasks = {"collect_coal" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 107, "episodes" = 192, "best" = 0.5625}, "make_iron_pickaxe" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 11, "episodes" = 191, "best" = 0.1094}, "make_iron_sword" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 3, "episodes" = 128, "best" = 0.0469}}
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
