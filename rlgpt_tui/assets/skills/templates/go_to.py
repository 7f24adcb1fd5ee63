"""Walk next to the nearest visible {target} and face it (True when it did); explore when none
is visible."""


def act(ctx):
    target = ctx.nearest("{target}")
    if target is None:
        yield from ctx.explore(6)
        return False
    reached = yield from ctx.go_to(target)
    if reached:
        yield from ctx.face(target)
    return reached
