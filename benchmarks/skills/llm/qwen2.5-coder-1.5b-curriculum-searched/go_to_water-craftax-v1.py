# /// rlgpt-skill
# name = "go_to_water"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "walk to the nearest water block and do until 1 water is collected"
# made_in = "session 15, iteration 2"
# [record]
# calls = 9465
# steps = 2542
# end_reasons = {"returned" = 9454, "episode ended" = 10, "abandoned" = 1}
# tasks = {"collect_drink" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 28, "episodes" = 64, "best" = 0.4375}}
# ///
def act(ctx):
    water = ctx.nearest("water")
    if water is None:
        return False
    if not (yield from ctx.go_to(water)):
        return False
    if not (yield from ctx.make('wood_sword')):
        return False
    return (yield from ctx.place('wood_sword'))
