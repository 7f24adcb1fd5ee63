# /// rlgpt-skill
# name = "go_to_tree"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest tree and face it"
# made_in = "session 1, iteration 1"
# [record]
# calls = 1814
# steps = 4178
# end_reasons = {"returned" = 1024, "episode ended" = 19, "abandoned" = 4}
# tasks = {"collect_wood" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 58, "episodes" = 61, "best" = 0.9531}, "defeat_zombie" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 59, "best" = 0.9219}, "collect_iron" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 5, "episodes" = 192, "best" = 0.0469}, "collect_drink" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 114, "episodes" = 192, "best" = 0.875}, "collect_coal" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 36, "episodes" = 63, "best" = 0.5781}}
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
