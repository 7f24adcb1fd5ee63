# /// rlgpt-skill
# name = "hit_cow"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "face the cow and hit it until it is eaten"
# made_in = "session 2, iteration 1"
# [record]
# calls = 287
# steps = 0
# end_reasons = {}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 59, "best" = 0.9062}}
# ///
def act(ctx):
    cow = ctx.nearest("cow")
    if cow is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(cow)):
        return False
    yield from ctx.face(cow)
    for _ in range(3):
        yield Action.DO
    return ctx.has("meat")
