# /// rlgpt-skill
# name = "do"
# world = "craftax"
# version = 2
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "collect a cow, hit it until it is eaten"
# made_in = "session 2, iteration 2"
# [record]
# calls = 2589
# steps = 2056
# end_reasons = {"returned" = 453, "episode ended" = 9, "abandoned" = 2}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 0, "episodes" = 128, "best" = 0.0}}
# ///
def act(ctx):
    cow = ctx.nearest('cow')
    if cow is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(cow, max_steps=30, dig=False)):
        return False
    yield from ctx.face(cow)
    for _ in range(1):
        yield Action.DO
    return ctx.has('wood')
