# /// rlgpt-skill
# name = "go_to_water"
# world = "craftax"
# version = 2
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "walk to the nearest water block and do until 1 water is collected"
# made_in = "session 15, iteration 3"
# [record]
# calls = 12206
# steps = 1205
# end_reasons = {"returned" = 10414, "episode ended" = 203}
# tasks = {"collect_drink" = {"measure" = "success_rate", "evaluations" = 4, "successes" = 158, "episodes" = 254, "best" = 0.625}}
# ///
def act(ctx):
    water = ctx.nearest("water")
    if water is None:
        return False
    if not (yield from ctx.go_to(water)):
        return False
    yield from ctx.collect("water")
    return True