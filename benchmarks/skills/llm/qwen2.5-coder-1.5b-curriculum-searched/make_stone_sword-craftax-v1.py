# /// rlgpt-skill
# name = "make_stone_sword"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "make a stone sword near the table"
# made_in = "session 8, iteration 1"
# [record]
# calls = 93
# steps = 0
# end_reasons = {}
# tasks = {"make_stone_sword" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 60, "best" = 0.9062}}
# ///
def act(ctx):
    table = ctx.nearest("table")
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.make('stone_sword')):
        return False
    return (yield from ctx.place('stone_sword'))
