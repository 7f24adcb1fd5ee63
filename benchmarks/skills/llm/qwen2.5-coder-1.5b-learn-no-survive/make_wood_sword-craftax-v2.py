# /// rlgpt-skill
# name = "make_wood_sword"
# world = "craftax"
# version = 2
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "make a wood sword near the table"
# made_in = "session 11, iteration 3"
# [record]
# calls = 9640
# steps = 2
# end_reasons = {"returned" = 66, "error" = 3}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 18, "episodes" = 64, "best" = 0.2812}, "eat_plant" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 0, "episodes" = 128, "best" = 0.0}}
# ///
def act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    sword = ctx.nearest('wood_sword')
    if sword is None:
        return False
    if not (yield from ctx.go_to(sword)):
        return False
    return (yield from ctx.make('wood_sword'))
