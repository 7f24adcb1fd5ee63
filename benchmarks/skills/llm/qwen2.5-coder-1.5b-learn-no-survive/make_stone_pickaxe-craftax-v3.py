# /// rlgpt-skill
# name = "make_stone_pickaxe"
# world = "craftax"
# version = 3
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "make a stone pickaxe near the table"
# made_in = "session 20, iteration 2"
# [record]
# calls = 2626
# steps = 13
# end_reasons = {"returned" = 73}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 23, "episodes" = 64, "best" = 0.3594}, "eat_plant" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 0, "episodes" = 128, "best" = 0.0}}
# ///
def act(ctx):
    table = ctx.nearest("table")
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    return (yield from ctx.make("stone_pickaxe"))
