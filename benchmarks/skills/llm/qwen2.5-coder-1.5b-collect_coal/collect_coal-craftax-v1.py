# /// rlgpt-skill
# name = "collect_coal"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "walk to the coal and do until 1 coal is held"
# made_in = "session 2, iteration 1"
# [record]
# calls = 5683
# steps = 898
# end_reasons = {"returned" = 148, "episode ended" = 11, "abandoned" = 1}
# tasks = {"collect_coal" = {"measure" = "success_rate", "evaluations" = 8, "successes" = 281, "episodes" = 512, "best" = 0.5625}}
# ///
def act(ctx):
    coal = ctx.nearest('coal')
    if coal is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(coal)):
        return False
    yield from ctx.face(coal)
    for _ in range(1):
        yield Action.DO
    return ctx.has('coal')
