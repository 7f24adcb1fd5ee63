# /// rlgpt-skill
# name = "do"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "use `do` on the tree to collect wood"
# made_in = "session 1, iteration 1"
# [record]
# calls = 7347
# steps = 14782
# end_reasons = {"returned" = 3462, "episode ended" = 40, "abandoned" = 9}
# tasks = {"collect_wood" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 58, "episodes" = 61, "best" = 0.9531}, "eat_cow" = {"measure" = "success_rate", "evaluations" = 20, "successes" = 16, "episodes" = 1280, "best" = 0.0312}, "defeat_zombie" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 59, "best" = 0.9219}, "collect_iron" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 5, "episodes" = 192, "best" = 0.0469}, "collect_drink" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 56, "episodes" = 64, "best" = 0.875}}
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
