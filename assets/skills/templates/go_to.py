"""Walk next to the nearest visible {target} and face it; explore when none is visible."""


def act(ctx):
    target = ctx.nearest("{target}")
    if target is None:
        yield from ctx.explore(6)
        return
    reached = yield from ctx.go_to(target)
    if reached:
        yield from ctx.face(target)
