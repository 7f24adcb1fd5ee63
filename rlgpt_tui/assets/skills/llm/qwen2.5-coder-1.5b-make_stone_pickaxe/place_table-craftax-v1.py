# /// rlgpt-skill
# name = "place_table"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "face a free tile and place a table"
# made_in = "session 1, iteration 1"
# [record]
# calls = 0
# steps = 0
# end_reasons = {}
# tasks = {"make_stone_pickaxe" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 72, "episodes" = 82, "best" = 0.875}}
# ///
def act(ctx):
    yield from ctx.face((ctx.view.facing_position[0] + 1, ctx.view.facing_position[1]))
    yield from ctx.place('table')
