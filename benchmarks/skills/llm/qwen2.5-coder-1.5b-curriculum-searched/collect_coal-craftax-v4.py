# /// rlgpt-skill
# name = "collect_coal"
# world = "craftax"
# version = 4
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "`do` facing coal, 3 times (needs 1 wood_pickaxe in the inventory); 3 coal for make_iron_pickaxe, make_iron_sword"
# made_in = "session 20, iteration 1"
# [record]
# calls = 0
# steps = 0
# end_reasons = {}
# tasks = {}
# ///
def act(ctx):
    coal = ctx.nearest('coal')
    if coal is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(coal)):
        return False
    yield from ctx.face(coal)
    for _ in range(3):
        yield Action.DO
    return ctx.has('coal')
