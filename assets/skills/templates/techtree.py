"""Tech-tree skills: one generator per catalog task, each obtaining what it needs first.

The builtin fast agent appends `def act(ctx): return (yield from <task>(ctx))` to this file.
Every helper is bounded (fixed loop counts) and returns True when its goal holds.
"""


def survive(ctx):
    """Fight an adjacent zombie; drink and eat when low and water or a cow is in sight."""
    x, y = ctx.view.position
    zombie = ctx.nearest("zombie")
    if zombie is not None and abs(zombie[0] - x) + abs(zombie[1] - y) == 1:
        yield from ctx.face(zombie)
        for _ in range(6):
            if ctx.view.mob_at(zombie[0], zombie[1]) != "zombie":
                break
            yield Action.DO
    for _ in range(5):
        if ctx.view.drink > 6 or ctx.nearest("water") is None:
            break
        yield from ctx.collect("water", max_steps=12)
    if ctx.view.food <= 5 and ctx.nearest("cow") is not None:
        yield from ctx.collect("cow", max_steps=20)


def find(ctx, name, tries=8):
    for _ in range(tries):
        yield from survive(ctx)
        if ctx.nearest(name) is not None:
            return True
        yield from ctx.explore(8)
    return ctx.nearest(name) is not None


def gather(ctx, block, item, count=1, tries=12):
    for _ in range(tries):
        if ctx.has(item, count):
            return True
        if (yield from find(ctx, block)):
            yield from ctx.collect(block)
    return ctx.has(item, count)


def collect_wood(ctx):
    return (yield from gather(ctx, "tree", "wood", 1))


def place_table(ctx):
    for _ in range(6):
        if ctx.is_near("table", 1):
            return True
        yield from gather(ctx, "tree", "wood", 2)
        if (yield from ctx.place("table")):
            return True
        yield from gather(ctx, "tree", "wood", ctx.inventory["wood"] + 1)
    return ctx.is_near("table", 1)


def near_table(ctx):
    target = ctx.nearest("table")
    if target is not None and (yield from ctx.go_to(target)):
        return True
    return (yield from place_table(ctx))


def make(ctx, tool, needs):
    for _ in range(4):
        if ctx.has(tool):
            return True
        for block, item in needs:
            yield from gather(ctx, block, item, 1)
        if "furnace" in tool or tool.startswith("iron"):
            yield from near_furnace(ctx)
        elif not ctx.is_near("table", 1):
            yield from near_table(ctx)
        yield from ctx.make(tool)
    return ctx.has(tool)


def make_wood_pickaxe(ctx):
    return (yield from make(ctx, "wood_pickaxe", [("tree", "wood")]))


def collect_stone(ctx):
    if not (yield from make_wood_pickaxe(ctx)):
        return False
    return (yield from gather(ctx, "stone", "stone", 1))


def make_stone_pickaxe(ctx):
    if not (yield from make_wood_pickaxe(ctx)):
        return False
    return (yield from make(ctx, "stone_pickaxe", [("tree", "wood"), ("stone", "stone")]))


def place_furnace(ctx):
    for _ in range(4):
        if ctx.is_near("furnace", 1):
            return True
        if not (yield from make_wood_pickaxe(ctx)):
            return False
        yield from gather(ctx, "stone", "stone", 1)
        if not ctx.is_near("table", 1):
            yield from near_table(ctx)
        if (yield from ctx.place("furnace")):
            return True
        yield from gather(ctx, "stone", "stone", ctx.inventory["stone"] + 1)
    return ctx.is_near("furnace", 1)


def near_furnace(ctx):
    target = ctx.nearest("furnace")
    if target is not None and ctx.is_near("table", 2):
        return (yield from ctx.go_to(target))
    return (yield from place_furnace(ctx))


def collect_coal(ctx):
    if not (yield from make_wood_pickaxe(ctx)):
        return False
    return (yield from gather(ctx, "coal", "coal", 1, tries=20))


def collect_iron(ctx):
    if not (yield from make_stone_pickaxe(ctx)):
        return False
    return (yield from gather(ctx, "iron", "iron", 1, tries=30))


def make_iron_pickaxe(ctx):
    if not (yield from make_stone_pickaxe(ctx)):
        return False
    needs = [("tree", "wood"), ("stone", "stone"), ("coal", "coal"), ("iron", "iron")]
    for block, item in needs:
        if not (yield from gather(ctx, block, item, 1, tries=30)):
            return False
    return (yield from make(ctx, "iron_pickaxe", needs))


def collect_diamond(ctx):
    if not (yield from make_iron_pickaxe(ctx)):
        return False
    return (yield from gather(ctx, "diamond", "diamond", 1, tries=40))


def collect_drink(ctx):
    if (yield from find(ctx, "water")):
        return (yield from ctx.collect("water"))
    return False


def eat_cow(ctx):
    if (yield from find(ctx, "cow")):
        return (yield from ctx.collect("cow"))
    return False
