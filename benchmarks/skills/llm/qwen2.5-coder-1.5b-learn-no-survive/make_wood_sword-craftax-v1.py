# /// rlgpt-skill
# name = "make_wood_sword"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "make a wood sword near the table"
# made_in = "session 7, iteration 1"
# [record]
# calls = 20227
# steps = 0
# end_reasons = {}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 40, "episodes" = 192, "best" = 0.2812}}
# ///
def act(ctx):
    table = ctx.nearest("table")
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    return (yield from ctx.make("wood_sword"))
