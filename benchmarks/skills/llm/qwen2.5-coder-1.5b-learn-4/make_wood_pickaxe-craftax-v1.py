# /// rlgpt-skill
# name = "make_wood_pickaxe"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "make a wooden pickaxe near the table"
# made_in = "session 8, iteration 1"
# [record]
# calls = 1622
# steps = 682
# end_reasons = {"returned" = 898, "episode ended" = 4, "abandoned" = 1}
# tasks = {"make_wood_pickaxe" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "collect_stone" = {"measure" = "success_rate", "evaluations" = 6, "successes" = 222, "episodes" = 322, "best" = 0.8594}, "collect_coal" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 15, "episodes" = 64, "best" = 0.2344}}
# ///
def act(ctx):
    table = ctx.nearest("table")
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    return (yield from ctx.make("wood_pickaxe"))
