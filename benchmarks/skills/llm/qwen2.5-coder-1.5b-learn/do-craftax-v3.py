# /// rlgpt-skill
# name = "do"
# world = "craftax"
# version = 3
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "hit a cow until it is eaten"
# made_in = "session 2, iteration 3"
# [record]
# calls = 2493
# steps = 1841
# end_reasons = {"returned" = 433, "episode ended" = 6, "abandoned" = 1}
# tasks = {"eat_cow" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 4, "episodes" = 128, "best" = 0.0312}}
# ///
def act(ctx):
    while True:
        cow = ctx.nearest('cow')
        if cow is None:
            yield from ctx.explore(6)
            return False
        if not (yield from ctx.go_to(cow)):
            return False
        yield from ctx.face(cow)
        for _ in range(1):
            yield Action.DO
        if ctx.has('wood') or ctx.has('stone') or ctx.has('coal') or ctx.has('iron') or ctx.has('diamond') or ctx.has('water') or ctx.has('sapling'):
            return True
