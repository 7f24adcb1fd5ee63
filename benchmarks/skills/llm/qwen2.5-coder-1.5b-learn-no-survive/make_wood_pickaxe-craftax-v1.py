# /// rlgpt-skill
# name = "make_wood_pickaxe"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "make a wood pickaxe near the table"
# made_in = "session 4, iteration 1"
# [record]
# calls = 7075
# steps = 583
# end_reasons = {"returned" = 855, "episode ended" = 2}
# tasks = {"collect_iron" = {"measure" = "success_rate", "evaluations" = 4, "successes" = 7, "episodes" = 256, "best" = 0.0469}, "eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 7, "episodes" = 64, "best" = 0.1094}, "make_wood_pickaxe" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "collect_stone" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "make_stone_sword" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 60, "best" = 0.9062}, "collect_coal" = {"measure" = "success_rate", "evaluations" = 8, "successes" = 148, "episodes" = 476, "best" = 0.5938}, "survive_night" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 0, "episodes" = 64, "best" = 0.0}, "eat_plant" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 0, "episodes" = 128, "best" = 0.0}}
# ///
def act(ctx):
    table = ctx.nearest("table")
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    return (yield from ctx.make("wood_pickaxe"))
