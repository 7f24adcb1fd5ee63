# Hand-written by this project's developers (README, Benchmarks: "Care beside the script").
# The tech-tree library (assets/skills/templates/techtree.py) with its act() below.
"""Tech-tree skills: one generator per catalog task, each obtaining what it needs first.

The builtin fast agent appends `def act(ctx): return (yield from <task>(ctx))` to this file.
Every helper is bounded (fixed loop counts) and returns True when its goal holds.
"""


def rest(ctx):
    """At dusk or when exhausted: wall in (ctx.shelter) and sleep until day comes back."""
    v = ctx.view
    if not v.sleeping and v.daylight > 0.5 and v.energy > 3:
        return False
    if not v.sleeping and not ctx.enclosed() and not (yield from ctx.shelter()):
        for _ in range(2):  # stones to wall in with (no gather: it calls survive)
            if ctx.has("stone", 2) or not ctx.has("wood_pickaxe"):
                break
            yield from ctx.collect("stone", max_steps=20)
        stone = ctx.nearest("stone") or ctx.recall("stone")
        if stone is not None:
            yield from ctx.go_to(stone, max_steps=20, dig=ctx.has("wood_pickaxe"))
        if not (yield from ctx.shelter()) and ctx.view.energy > 1:
            return False
    for _ in range(400):
        v = ctx.view
        if v.sleeping:
            yield Action.NOOP
        elif not ctx.enclosed() and v.energy > 1:
            return False  # (exhausted: sleeping in the open beats dying of it)
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


def recover(ctx):
    """Hurt: fight what is adjacent, wall in (ctx.shelter, mining stone for it when none is
    held) and wait there, asleep while tired (health comes back twice as fast), until
    health is back to 7; False when no shelter could be made."""
    health = 7
    ctx.recall("water")
    yield from ctx.defend()
    if not ctx.view.sleeping and not ctx.enclosed() and not (yield from ctx.shelter()):
        if not ctx.has("stone", 2) and ctx.has("wood_pickaxe"):
            for _ in range(2):
                yield from ctx.collect("stone", max_steps=10)
        if not (yield from ctx.shelter()):
            return False
    for _ in range(300):
        v = ctx.view
        if v.health >= health and not v.sleeping:
            break
        if not v.sleeping and not ctx.enclosed():
            return False
        yield Action.NOOP if v.sleeping or v.energy >= 9 else Action.SLEEP
    return ctx.view.health >= health


def fight(ctx):
    """Fight the nearest zombie or skeleton in sight (none: returns at once)."""
    yield from ctx.defend()
    for name in ("zombie", "skeleton"):
        if ctx.nearest(name) is not None:
            return (yield from hunt(ctx, name, tries=6))
    return False


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


def survive_night(ctx):
    """The survive_night task's skill: survive, called again and again."""
    return (yield from survive(ctx))


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
    """Find water and drink until the drink stat is full."""
    if not (yield from find(ctx, "water")):
        return False
    drank = False
    for _ in range(12):
        if ctx.view.drink >= 9 or not (yield from ctx.collect("water", max_steps=8)):
            break
        drank = True
    return drank


def eat_cow(ctx):
    if (yield from find(ctx, "cow")):
        return (yield from ctx.collect("cow"))
    return False


# -- the open-ended library (Crafter's 22 achievements) --------------------------------------
# Each skill returns when its goal holds or it cannot progress; calls are cut after a few
# dozen steps and made again, so every skill starts by looking at what the View shows
# (inventory, achievements, remembered map) and picks up where it was.


def make_wood_sword(ctx):
    return (yield from make(ctx, "wood_sword", [("tree", "wood")]))


def make_stone_sword(ctx):
    if not (yield from make_wood_pickaxe(ctx)):
        return False
    return (yield from arm(ctx))


def place_stone(ctx):
    """Place a stone (a wall, a bridge over water); mines one first when none is held."""
    if not ctx.has("stone") and not (yield from collect_stone(ctx)):
        return False
    return (yield from ctx.place("stone"))


def iron_tool(ctx, tool):
    """An iron pickaxe or sword: wood, coal, iron and stone, then a table and a furnace."""
    if ctx.has(tool):
        return True
    if not (yield from make_stone_pickaxe(ctx)):
        return False
    yield from arm(ctx)
    needs = [("tree", "wood", 3), ("coal", "coal", 1), ("iron", "iron", 1), ("stone", "stone", 3)]
    for block, item, count in needs:
        if not (yield from gather(ctx, block, item, count, tries=30)):
            return False
    return (yield from make(ctx, tool, [(b, i) for b, i, c in needs]))


def make_iron_sword(ctx):
    return (yield from iron_tool(ctx, "iron_sword"))


def collect_sapling(ctx):
    """Hit grass until a sapling drops (one hit in ten)."""
    for _ in range(8):
        if ctx.has("sapling"):
            return True
        yield from survive(ctx)
        if (yield from find(ctx, "grass", tries=3)):
            yield from ctx.collect("grass", max_steps=12)
    return ctx.has("sapling")


def place_plant(ctx):
    """Plant a sapling on grass and remember where and when (it ripens 600 steps later)."""
    if not (yield from collect_sapling(ctx)):
        return False
    for _ in range(3):
        if (yield from ctx.place("plant")):
            fx, fy = ctx.view.facing_position
            plants = ctx.memory.get("plants", [])
            ctx.memory["plants"] = plants + [[fx, fy, ctx.view.step]]
            return True
        yield from ctx.explore(2)
    return False


def ripe_plant_in_sight(ctx):
    return ctx.nearest("ripe_plant") is not None


def plant_ready(ctx):
    """A planted sapling should be ripe by now (600 steps), or a ripe one is in sight."""
    if ripe_plant_in_sight(ctx):
        return True
    step = ctx.view.step
    return any(step - planted >= 620 for x, y, planted in ctx.memory.get("plants", []))


def eat_plant(ctx):
    """Eat a ripe plant: the one in sight, else walk back to a sapling planted long enough
    ago; plant one when none grows. Unripe plants are left alone (hitting them gives
    nothing and in Crafter damages them)."""
    ctx.recall("water")
    if ripe_plant_in_sight(ctx):
        return (yield from ctx.collect("ripe_plant", max_steps=30))
    plants = ctx.memory.get("plants", [])
    if not plants:
        yield from place_plant(ctx)
        return False
    step = ctx.view.step
    for x, y, planted in plants:
        if step - planted < 620:
            continue
        if not (yield from ctx.go_to((x, y), 60, ctx.has("wood_pickaxe"))):
            return False
        block = ctx.view.block_at(x, y)
        if block == "ripe_plant":
            return (yield from ctx.collect("ripe_plant", max_steps=10))
        if block not in ("plant", "ripe_plant"):  # gone: forget it
            ctx.memory["plants"] = [p for p in plants if p[0] != x or p[1] != y]
        return False
    return False


def wake_up(ctx):
    """Wall in and sleep until rested (the wake_up achievement), whatever the hour."""
    v = ctx.view
    if not v.sleeping and v.energy >= 9:
        return False
    if not v.sleeping and not ctx.enclosed():
        if not ctx.has("stone"):
            yield from gather(ctx, "stone", "stone", 2, tries=4)
        if not (yield from ctx.shelter()):
            return False
    for _ in range(600):
        v = ctx.view
        if v.sleeping:
            yield Action.NOOP
        elif v.energy < 9 and ctx.enclosed():
            yield Action.SLEEP
        else:
            break
    return ctx.view.energy >= 9


def hunt(ctx, name, tries=10):
    """Walk to the nearest visible ``name`` and hit it until it is gone; True once one died."""
    for _ in range(tries):
        if ctx.view.health <= 3:
            return False
        target = ctx.nearest(name)
        if target is None:
            return False
        px, py = ctx.view.position
        if abs(target[0] - px) + abs(target[1] - py) == 1:
            yield from ctx.face(target)
            for _ in range(6):
                if ctx.view.mob_at(*target) != name or ctx.view.facing_position != target:
                    break
                yield Action.DO
            if ctx.view.mob_at(*target) is None:
                return True
        else:
            yield from ctx.go_to(target, max_steps=3)
    return False


def defeat_zombie(ctx):
    """Fight the nearest zombie (with the best sword at hand); zombies roam grass at night."""
    ctx.recall("water")
    for _ in range(4):
        if ctx.nearest("zombie") is not None:
            return (yield from hunt(ctx, "zombie"))
        yield from ctx.explore(8)
    return False


def defeat_skeleton(ctx):
    """Skeletons live in the dark tunnels of caves: arm, tunnel through stone until one
    shows, then close in and hit it (stepping out of its line of fire is not attempted)."""
    ctx.recall("water")
    if not (yield from make_wood_pickaxe(ctx)):
        return False
    yield from arm(ctx)
    for _ in range(6):
        if ctx.view.health <= 4:
            return False
        if ctx.nearest("skeleton") is not None:
            return (yield from hunt(ctx, "skeleton"))
        tunnel = ctx.recall("path")
        if tunnel is not None and ctx.view.block_at(*tunnel) == "unknown":
            yield from ctx.go_to(tunnel, 30, True)
        yield from ctx.explore(10, dig=True)
    return False


def explore(ctx):
    """Walk into new land (the remembered map grows; water, cows and trees are noted)."""
    ctx.recall("water")
    yield from ctx.defend()
    return (yield from ctx.explore(16))


def tunnel_for_ores(ctx):
    """Dig through stone in a steady direction and mine the ores met on the way."""
    ctx.recall("water")
    if not (yield from make_wood_pickaxe(ctx)):
        return False
    for _ in range(4):
        for ore, tool in (("diamond", "iron_pickaxe"), ("iron", "stone_pickaxe"), ("coal", "")):
            if (not tool or ctx.has(tool)) and ctx.nearest(ore) is not None:
                return (yield from ctx.collect(ore))
        yield from ctx.explore(12, dig=True)
    return False


# -- the pure-code baseline: one fixed script over the library -----------------------------
# (achievement, skill, ready): the script works on the first achievement not yet unlocked
# whose ``ready`` holds; fighting and eating the plant wait for their moment.
def always(ctx):
    return True


def zombie_close(ctx):
    return ctx.nearest("zombie") is not None


def skeleton_worth_it(ctx):
    return ctx.has("stone_sword") and ctx.view.health >= 6


def night_or_tired(ctx):
    return ctx.view.daylight < 0.4 or ctx.view.energy <= 3


PLAN = [
    ("wake_up", wake_up, night_or_tired),
    ("defeat_zombie", defeat_zombie, zombie_close),
    ("eat_plant", eat_plant, plant_ready),
    ("collect_wood", collect_wood, always),
    ("place_table", place_table, always),
    ("make_wood_pickaxe", make_wood_pickaxe, always),
    ("make_wood_sword", make_wood_sword, always),
    ("collect_sapling", collect_sapling, always),
    ("place_plant", place_plant, always),
    ("collect_drink", collect_drink, always),
    ("collect_stone", collect_stone, always),
    ("place_stone", place_stone, always),
    ("make_stone_pickaxe", make_stone_pickaxe, always),
    ("make_stone_sword", make_stone_sword, always),
    ("eat_cow", eat_cow, always),
    ("place_furnace", place_furnace, always),
    ("collect_coal", collect_coal, always),
    ("collect_iron", collect_iron, always),
    ("make_iron_pickaxe", make_iron_pickaxe, always),
    ("make_iron_sword", make_iron_sword, always),
    ("collect_diamond", collect_diamond, always),
    ("defeat_zombie", defeat_zombie, always),
    ("defeat_skeleton", defeat_skeleton, skeleton_worth_it),
    ("eat_plant", eat_plant, always),
]


def play(ctx):
    """Survive first (fight what is adjacent, shelter and sleep at night, drink and eat),
    then the first achievement of PLAN not yet unlocked whose moment has come."""
    ctx.recall("water")
    yield from survive(ctx)
    done = ctx.view.achievements
    for achievement, skill, ready in PLAN:
        if achievement not in done and ready(ctx):
            yield from skill(ctx)
            return achievement in ctx.view.achievements
    yield from survive(ctx)
    yield from ctx.explore(8)
    return False


def act(ctx):
    return (yield from make_iron_pickaxe(ctx))
