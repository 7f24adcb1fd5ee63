# /// rlgpt-skill
# name = "place_table"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "face a free tile and place a table"
# made_in = "session 7, iteration 1"
# [record]
# calls = 1927
# steps = 1226
# end_reasons = {"returned" = 898, "episode ended" = 3, "abandoned" = 1}
# tasks = {"place_table" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 59, "best" = 0.9219}, "make_wood_pickaxe" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "collect_stone" = {"measure" = "success_rate", "evaluations" = 6, "successes" = 222, "episodes" = 322, "best" = 0.8594}, "collect_coal" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 15, "episodes" = 64, "best" = 0.2344}}
# ///
def act(ctx):
    # Collect wood
    yield from ctx.collect('wood', max_steps=40)
    # Place table
    yield from ctx.place('table')
