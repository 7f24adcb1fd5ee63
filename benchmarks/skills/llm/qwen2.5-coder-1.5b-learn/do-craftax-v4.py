# /// rlgpt-skill
# name = "do"
# world = "craftax"
# version = 4
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "use `do` on the grass to collect water"
# made_in = "session 5, iteration 1"
# [record]
# calls = 3238
# steps = 482
# end_reasons = {"returned" = 112, "error" = 41, "episode ended" = 1, "abandoned" = 1}
# tasks = {"collect_drink" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 113, "episodes" = 192, "best" = 0.8594}, "eat_plant" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 0, "episodes" = 64, "best" = 0.0}}
# ///
def act(ctx):
    if not (yield from ctx.collect('water')):
        return False
    yield from ctx.face('water')
    for _ in range(1):
        yield Action.DO
    return True
