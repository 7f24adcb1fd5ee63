# /// rlgpt-skill
# name = "place_table"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "face a free tile and place a table"
# made_in = "session 4, iteration 1"
# [record]
# calls = 9798
# steps = 437
# end_reasons = {"returned" = 325}
# tasks = {"collect_iron" = {"measure" = "success_rate", "evaluations" = 4, "successes" = 7, "episodes" = 256, "best" = 0.0469}, "eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 7, "episodes" = 64, "best" = 0.1094}, "place_table" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 59, "best" = 0.9219}, "make_wood_pickaxe" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "collect_stone" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "make_stone_sword" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 60, "best" = 0.9062}, "collect_coal" = {"measure" = "success_rate", "evaluations" = 8, "successes" = 148, "episodes" = 476, "best" = 0.5938}, "eat_plant" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 0, "episodes" = 128, "best" = 0.0}}
# ///
def act(ctx):
    yield from ctx.face((3, 4))
    yield from ctx.place('table')
