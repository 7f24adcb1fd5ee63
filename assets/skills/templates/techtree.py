"""Tech-tree skills: one generator per catalog task, each obtaining what it needs first.

The builtin fast agent appends `def act(ctx): return (yield from <task>(ctx))` to this file.
Every helper is bounded (fixed loop counts) and returns True when its goal holds.
"""


def rest(ctx):
    """At dusk or when exhausted: wall in (ctx.shelter) and sleep until day comes back."""
    v = ctx.view
    if not v.sleeping and v.daylight > 0.5 and v.energy > 2:
        return False
    if not v.sleeping and not ctx.enclosed() and not (yield from ctx.shelter()):
        stone = ctx.nearest("stone") or ctx.recall("stone")
        if stone is not None:
            yield from ctx.go_to(stone, max_steps=20)
        if not (yield from ctx.shelter()):
            return False
    for _ in range(400):
        v = ctx.view
        if v.sleeping:
            yield Action.NOOP
        elif not ctx.enclosed():
            return False
        elif v.energy < 9:
            yield Action.SLEEP
        elif v.daylight < 0.6:
            yield Action.NOOP
        else:
            break
    for _ in range(4):  # morning: dig out of the shelter
        if not ctx.enclosed():
            break
        yield from ctx.explore(2, dig=True)
    return True


def drink(ctx):
    water = ctx.nearest("water") or ctx.recall("water")
    if water is None or not (yield from ctx.go_to(water, 80, ctx.has("wood_pickaxe"))):
        return False
    for _ in range(12):
        if ctx.view.drink >= 9 or not (yield from ctx.collect("water", max_steps=4)):
            break
    return True


def eat(ctx):
    for _ in range(6):
        if ctx.view.food > 6:
            return True
        if ctx.nearest("cow") is not None:
            yield from ctx.collect("cow", max_steps=30)
            continue
        grass = ctx.recall("grass")
        if grass is not None and ctx.view.block_at(grass[0], grass[1]) == "unknown":
            yield from ctx.go_to(grass, 40, ctx.has("wood_pickaxe"))
        yield from ctx.explore(10, ctx.has("wood_pickaxe"))
    return ctx.view.food > 6


def survive(ctx):
    """Fight what is next to the player, sleep safely at night, drink and eat when low."""
    ctx.recall("water")  # keeps the map of everything seen from now on
    yield from ctx.defend()
    yield from rest(ctx)
    if ctx.view.drink <= 5 or (ctx.view.drink <= 7 and ctx.nearest("water") is not None):
        yield from drink(ctx)
    if ctx.view.food <= 4 or (ctx.view.food <= 7 and ctx.nearest("cow") is not None):
        yield from eat(ctx)


def find(ctx, name, tries=8):
    for _ in range(tries):
        yield from survive(ctx)
        if ctx.nearest(name) is not None:
            return True
        seen = ctx.recall(name)
        if seen is not None:
            yield from ctx.go_to(seen, max_steps=40, dig=ctx.has("wood_pickaxe"))
            continue
        yield from ctx.explore(
            8, dig=name in ("iron", "diamond", "coal") and ctx.has("wood_pickaxe")
        )
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


def workshop(ctx, furnace=False):
    """Stand next to a table (and a furnace): the ones in sight, else newly placed ones."""
    for _ in range(6):
        if ctx.is_near("table", 1) and (not furnace or ctx.is_near("furnace", 1)):
            return True
        yield from survive(ctx)
        if not ctx.is_near("table", 1):
            table = ctx.nearest("table")
            if table is None or not (yield from ctx.go_to(table)):
                yield from place_table(ctx)
        elif furnace:
            yield from gather(ctx, "stone", "stone", 1)
            yield from ctx.place("furnace")
    return ctx.is_near("table", 1) and (not furnace or ctx.is_near("furnace", 1))


def make(ctx, tool, needs):
    for _ in range(4):
        if ctx.has(tool):
            return True
        for block, item in needs:
            yield from gather(ctx, block, item, 1)
        yield from workshop(ctx, tool.startswith("iron"))
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
        if (yield from workshop(ctx, True)):
            return True
    return ctx.is_near("furnace", 1)


def arm(ctx):
    """A stone sword: zombies then fall in two hits."""
    if ctx.has("stone_sword"):
        return True
    return (yield from make(ctx, "stone_sword", [("tree", "wood"), ("stone", "stone")]))


def collect_coal(ctx):
    if not (yield from make_wood_pickaxe(ctx)):
        return False
    return (yield from gather(ctx, "coal", "coal", 1, tries=20))


def collect_iron(ctx):
    if not (yield from make_stone_pickaxe(ctx)):
        return False
    yield from arm(ctx)
    return (yield from gather(ctx, "iron", "iron", 1, tries=30))


def make_iron_pickaxe(ctx):
    if ctx.has("iron_pickaxe"):
        return True
    if not (yield from make_stone_pickaxe(ctx)):
        return False
    yield from arm(ctx)
    # wood for the pickaxe and a table where the iron is, stone for a furnace
    needs = [("tree", "wood", 4), ("coal", "coal", 1), ("iron", "iron", 1), ("stone", "stone", 3)]
    for block, item, count in needs:
        if not (yield from gather(ctx, block, item, count, tries=30)):
            return False
    return (yield from make(ctx, "iron_pickaxe", [(b, i) for b, i, c in needs]))


def collect_diamond(ctx):
    yield from survive(ctx)
    if not (yield from make_iron_pickaxe(ctx)):
        return False
    return (yield from gather(ctx, "diamond", "diamond", 1, tries=60))


def collect_drink(ctx):
    if (yield from find(ctx, "water")):
        return (yield from ctx.collect("water"))
    return False


def eat_cow(ctx):
    if (yield from find(ctx, "cow")):
        return (yield from ctx.collect("cow"))
    return False
