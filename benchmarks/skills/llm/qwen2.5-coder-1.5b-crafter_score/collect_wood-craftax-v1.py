# /// rlgpt-skill
# name = "collect_wood"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "walk to the nearest tree and do until 9 wood are held"
# made_in = "session 1, iteration 1"
# [record]
# calls = 0
# steps = 0
# end_reasons = {}
# tasks = {"crafter_score" = {"measure" = "crafter_score", "evaluations" = 1, "successes" = 0, "episodes" = 16, "best" = 5.5837}}
# ///
def act(ctx):
    tree = ctx.nearest("tree")
    if tree is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(tree)):
        return False
    yield from ctx.face(tree)
    for _ in range(9):
        yield Action.DO
    return ctx.has("wood")
