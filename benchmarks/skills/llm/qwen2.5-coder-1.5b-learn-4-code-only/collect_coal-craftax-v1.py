# /// rlgpt-skill
# name = "collect_coal"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "`do` facing coal, once (needs 1 wood_pickaxe in the inventory)"
# made_in = "session 10, iteration 1"
# [record]
# calls = 8920
# steps = 4646
# end_reasons = {"returned" = 2949, "error" = 214, "episode ended" = 19, "abandoned" = 3}
# tasks = {"collect_coal" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 15, "episodes" = 128, "best" = 0.2344}}
# ///
def act(ctx):
    if not (yield from ctx.collect('coal')):
        return False
    yield from ctx.face('coal')
    yield Action.DO
    return ctx.view.drink > 0
