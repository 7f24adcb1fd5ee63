# /// rlgpt-skill
# name = "make_wood_pickaxe"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "make a wood_pickaxe near the table"
# made_in = "session 1, iteration 1"
# [record]
# calls = 0
# steps = 0
# end_reasons = {}
# tasks = {"crafter_score" = {"measure" = "crafter_score", "evaluations" = 1, "successes" = 0, "episodes" = 16, "best" = 5.5837}}
# ///
def act(ctx):
    table = ctx.nearest("table")
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    return (yield from ctx.make("wood_pickaxe"))
