# /// rlgpt-skill
# name = "make_stone_pickaxe"
# world = "craftax"
# version = 2
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "make a stone pickaxe near the table"
# made_in = "session 20, iteration 1"
# [record]
# calls = 623
# steps = 0
# end_reasons = {}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 13, "episodes" = 64, "best" = 0.2031}}
# ///
def act(ctx):
    table = ctx.nearest("table")
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.collect("sapling")):
        return False
    return (yield from ctx.make("stone_pickaxe"))
