# /// rlgpt-skill
# name = "hit_zombie"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "face a zombie and hit it until it is killed"
# made_in = "session 5, iteration 1"
# [record]
# calls = 2837
# steps = 8538
# end_reasons = {"returned" = 1377, "episode ended" = 31, "abandoned" = 11}
# tasks = {"defeat_zombie" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 55, "episodes" = 60, "best" = 0.9219}, "collect_stone" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 63, "episodes" = 133, "best" = 0.4844}, "collect_coal" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 0, "episodes" = 64, "best" = 0.0}}
# ///
def act(ctx):
    zombie = ctx.nearest("zombie")
    if zombie is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(zombie)):
        return False
    yield from ctx.face(zombie)
    for _ in range(1):
        yield Action.DO
    return ctx.has("wood")
