# /// rlgpt-skill
# name = "collect_drink"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest water tile and face it to drink"
# made_in = "session 5, iteration 2"
# [record]
# calls = 9581
# steps = 16863
# end_reasons = {"returned" = 3888, "episode ended" = 50, "abandoned" = 15}
# tasks = {"collect_drink" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 166, "episodes" = 192, "best" = 0.875}, "eat_cow" = {"measure" = "success_rate", "evaluations" = 5, "successes" = 70, "episodes" = 320, "best" = 0.2812}, "collect_coal" = {"measure" = "success_rate", "evaluations" = 8, "successes" = 274, "episodes" = 511, "best" = 0.625}, "survive_night" = {"measure" = "success_rate", "evaluations" = 4, "successes" = 1, "episodes" = 256, "best" = 0.0156}, "eat_plant" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 0, "episodes" = 64, "best" = 0.0}}
# ///
def act(ctx):
    if not (yield from ctx.collect('water')):
        return False
    yield from ctx.make('wood_pickaxe')
    yield from ctx.make('stone_pickaxe')
    return True
