# /// rlgpt-skill
# name = "make_wood_sword"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "make a wooden sword near the table"
# made_in = "session 4, iteration 1"
# [record]
# calls = 135
# steps = 0
# end_reasons = {}
# tasks = {"make_wood_sword" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}}
# ///
def act(ctx):
    table = ctx.nearest("table")
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.make('wood_sword')):
        return False
    return (yield from ctx.place('wood_sword'))
