"""Find a tree, walk to it, face it and chop until a log is in the inventory."""


def act(ctx):
    for _ in range(6):
        if ctx.nearest("tree") is not None:
            break
        yield from ctx.explore(6)
    got = yield from ctx.collect("tree")
    return got
