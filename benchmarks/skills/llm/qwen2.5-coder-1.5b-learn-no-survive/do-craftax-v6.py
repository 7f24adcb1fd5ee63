# /// rlgpt-skill
# name = "do"
# world = "craftax"
# version = 6
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "use do on the grass to collect a sapling"
# made_in = "session 6, iteration 1"
# [record]
# calls = 1848
# steps = 0
# end_reasons = {}
# tasks = {"collect_sapling" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 14, "episodes" = 64, "best" = 0.2188}}
# ///
def act(ctx):
    grass = ctx.nearest("grass")
    if grass is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(grass)):
        return False
    yield from ctx.face(grass)
    for _ in range(2):
        yield Action.DO
    return True