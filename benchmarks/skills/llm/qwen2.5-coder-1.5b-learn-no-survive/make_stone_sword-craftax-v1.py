# /// rlgpt-skill
# name = "make_stone_sword"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "make a stone sword near the table"
# made_in = "session 13, iteration 1"
# [record]
# calls = 3642
# steps = 1167
# end_reasons = {"returned" = 3554, "episode ended" = 3, "abandoned" = 2}
# tasks = {"make_stone_sword" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 60, "best" = 0.9062}, "collect_coal" = {"measure" = "success_rate", "evaluations" = 9, "successes" = 310, "episodes" = 574, "best" = 0.625}, "survive_night" = {"measure" = "success_rate", "evaluations" = 4, "successes" = 1, "episodes" = 256, "best" = 0.0156}, "eat_cow" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 34, "episodes" = 192, "best" = 0.2188}}
# ///
def act(ctx):
    table = ctx.nearest("table")
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    return (yield from ctx.make("stone_sword"))
