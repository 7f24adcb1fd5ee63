"""Walk next to the nearest visible tree and face it (True when it did); explore when none
is visible."""


def act(ctx):
    tree = ctx.nearest("tree")
    if tree is None:
        yield from ctx.explore(6)
        return False
    reached = yield from ctx.go_to(tree)
    if reached:
        yield from ctx.face(tree)
    return reached
