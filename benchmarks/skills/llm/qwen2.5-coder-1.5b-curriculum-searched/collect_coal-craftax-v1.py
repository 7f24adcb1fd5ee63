# /// rlgpt-skill
# name = "collect_coal"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "walk to the nearest coal and do until 1 coal is collected"
# made_in = "session 12, iteration 1"
# [record]
# calls = 947
# steps = 0
# end_reasons = {}
# tasks = {"collect_coal" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 32, "episodes" = 64, "best" = 0.5}}
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
    return ctx.has("wood")
