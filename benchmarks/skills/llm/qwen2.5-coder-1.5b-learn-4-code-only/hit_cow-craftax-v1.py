# /// rlgpt-skill
# name = "hit_cow"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "face a cow and hit it until it is eaten"
# made_in = "session 2, iteration 1"
# [record]
# calls = 705
# steps = 3289
# end_reasons = {"returned" = 641, "episode ended" = 59, "abandoned" = 5}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 59, "best" = 0.9219}}
# ///
def act(ctx):
    cow = ctx.nearest("cow")
    if cow is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(cow)):
        return False
    yield from ctx.face(cow)
    for _ in range(1):
        yield Action.DO
    return ctx.has("wood")
