"""Find a {target}, walk to it, face it and use `do` until the inventory or achievements change."""


def act(ctx):
    for _ in range(8):
        if ctx.nearest("{target}") is not None:
            break
        yield from ctx.explore(6)
    got = yield from ctx.collect("{target}")
    return got
