# /// rlgpt-skill
# name = "collect_wood"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "walk to the nearest wood and do until 3 wood are held"
# made_in = "reused from a library in session 2, iteration 1"
# [record]
# calls = 5519
# steps = 1756
# end_reasons = {"returned" = 440, "episode ended" = 3, "abandoned" = 1}
# tasks = {"collect_coal" = {"measure" = "success_rate", "evaluations" = 9, "successes" = 315, "episodes" = 576, "best" = 0.5625}}
# ///
def act(ctx):
    tree = ctx.nearest("tree")
    if tree is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(tree)):
        return False
    yield from ctx.face(tree)
    for _ in range(1):
        yield Action.DO
    return ctx.has("wood")
