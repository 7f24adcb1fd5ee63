# /// rlgpt-skill
# name = "make_wood_sword"
# world = "craftax"
# version = 2
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "make a wooden sword near the table"
# made_in = "session 22, iteration 2"
# [record]
# calls = 1055
# steps = 0
# end_reasons = {}
# tasks = {"defeat_zombie" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 60, "best" = 0.9062}}
# ///
def act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.make('wood_sword')):
        return False
    return (yield from ctx.place('wood_sword'))
