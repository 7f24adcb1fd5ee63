# /// rlgpt-skill
# name = "collect_iron"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest iron and do until 1 iron is held"
# made_in = "session 4, iteration 1"
# [record]
# calls = 540
# steps = 213
# end_reasons = {"returned" = 80, "episode ended" = 2}
# tasks = {"collect_iron" = {"measure" = "success_rate", "evaluations" = 4, "successes" = 7, "episodes" = 256, "best" = 0.0469}}
# ///
def act(ctx):
    if not (yield from ctx.collect('iron')):
        return False
    yield from ctx.make('wood_pickaxe')
    yield from ctx.make('stone_pickaxe')
    return True
