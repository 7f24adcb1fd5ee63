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




STEPS = {
    (-1, 0): Action.MOVE_LEFT,
    (1, 0): Action.MOVE_RIGHT,
    (0, -1): Action.MOVE_UP,
    (0, 1): Action.MOVE_DOWN,
}


def hostile_distance(ctx):
    px, py = ctx.view.position
    d = [abs(x - px) + abs(y - py) for n, x, y in ctx.view.mobs if n in ("zombie", "skeleton", "arrow")]
    return min(d) if d else 99


def run_code_until(ctx, code, cond, skill, points):
    """The code, interrupted where `cond` holds (at every step, or with `points` only at
    the decision points climb_probe's --danger 2 --interrupt makes: health lost, or a
    hostile mob came within 2 from farther); then `skill`."""
    if cond(ctx):
        return (yield from skill(ctx))
    health = ctx.view.health
    hostile = hostile_distance(ctx)
    gen = code(ctx)
    for a in gen:
        yield a
        note_cows(ctx)
        h2 = ctx.view.health
        d2 = hostile_distance(ctx)
        point = (not points) or (points != "calls" and (h2 < health or (d2 <= 2 and hostile > 2)))
        health, hostile = h2, d2
        if point and cond(ctx):
            gen.close()
            return (yield from skill(ctx))
    return False


def dig_out(ctx):
    for _ in range(4):
        if not ctx.enclosed():
            break
        yield from ctx.explore(2, dig=True)


# a two-tile cell A=(0,0), B=(1,0) walled on open ground: ("m", dx, dy) moves, ("p", x, y)
# places stone at (x, y) (relative to A) from the tile the player stands on, facing it
CELL_SCRIPT = [
    ("m", 0, -1), ("m", 0, 1), ("p", 0, 1),
    ("m", 0, -1), ("m", 1, 0), ("m", 0, 1), ("p", 1, 1),
    ("m", 1, 0), ("m", 1, 0), ("m", 0, -1), ("m", -1, 0), ("m", -1, 0), ("p", 0, -1),
    ("m", 1, 0), ("m", 1, 0), ("m", -1, 0), ("p", 1, -1),
    ("m", 0, 1), ("m", -1, 0), ("m", -1, 0), ("p", -1, 0),
    ("m", 1, 0), ("p", 2, 0),
]


CELL_ROUTE = [(0, 0), (0, -1), (1, -1), (1, 0), (2, 0), (3, 0), (3, -1), (2, -1)]


CELL_WALLS = [(0, 1), (1, 1), (-1, 0)]


SYMMETRIES = [(1, 0, 0, 1), (-1, 0, 0, 1), (1, 0, 0, -1), (-1, 0, 0, -1),
              (0, 1, 1, 0), (0, -1, 1, 0), (0, 1, -1, 0), (0, -1, -1, 0)]


def walkable_free(ctx, pos):
    return ctx.view.block_at(pos[0], pos[1]) in ("grass", "sand", "path") and ctx.view.mob_at(pos[0], pos[1]) is None


def wall_in_open(ctx):
    """Open ground: wall a two-tile cell around the player with up to 6 placed stones
    (23 steps), in whichever of 8 orientations the ground allows. True when enclosed."""
    px, py = ctx.view.position
    stones = ctx.inventory.get("stone", 0)
    for a, b, c, d in SYMMETRIES:
        def at(x, y):
            return (px + a * x + b * y, py + c * x + d * y)
        if not all(walkable_free(ctx, at(x, y)) for x, y in CELL_ROUTE):
            continue
        walls = [at(x, y) for x, y in CELL_WALLS]
        if any(ctx.view.block_at(w[0], w[1]) in ("unknown", "lava") or ctx.view.mob_at(w[0], w[1]) is not None for w in walls):
            continue
        need = 3 + sum(ctx.view.block_at(w[0], w[1]) in ("grass", "sand", "path") for w in walls)
        if need > stones:
            continue
        for kind, x, y in CELL_SCRIPT:
            if kind == "m":
                dx, dy = a * x + b * y, c * x + d * y
                qx, qy = ctx.view.position
                want = (qx + dx, qy + dy)
                if ctx.view.mob_at(want[0], want[1]) is not None:
                    yield from ctx.defend()
                    if ctx.view.mob_at(want[0], want[1]) is not None:
                        return False
                yield STEPS[(dx, dy)]
                if tuple(ctx.view.position) != want:
                    return False
            else:
                target = at(x, y)
                if tuple(ctx.view.facing_position) != target:
                    return False
                if ctx.view.block_at(target[0], target[1]) in ("grass", "sand", "path"):
                    if ctx.view.mob_at(target[0], target[1]) is not None:
                        return False
                    yield Action.PLACE_STONE
                    if ctx.view.block_at(target[0], target[1]) != "stone":
                        return False
        return ctx.enclosed()
    return False


def get_enclosed(ctx, open_walls=True):
    if ctx.view.sleeping or ctx.enclosed():
        return True
    if (yield from ctx.shelter()):
        return True
    if not ctx.has("stone", 2) and ctx.has("wood_pickaxe"):
        for _ in range(2):
            yield from ctx.collect("stone", max_steps=10)
    if (yield from ctx.shelter()):
        return True
    stone = ctx.nearest("stone") or ctx.recall("stone")
    if stone is not None:
        px, py = ctx.view.position
        if abs(stone[0] - px) + abs(stone[1] - py) <= 12:
            yield from ctx.go_to(stone, 20, dig=ctx.has("wood_pickaxe"))
            if (yield from ctx.shelter()):
                return True
    if open_walls:
        if (yield from wall_in_open(ctx)):
            ctx.log("open walls")
            return True
    return False


def heal(ctx, target=8):
    """Hurt: fight what is adjacent, drink/eat when low, wall in (mining stone for it,
    walking to stone in sight or remembered, else walling a cell on open ground with
    stones) and wait there, asleep while tired, until health is back to `target`; then
    dig out."""
    ctx.recall("water")
    yield from ctx.defend()
    if ctx.view.drink <= 3:
        yield from drink(ctx)
    if ctx.view.food <= 3:
        yield from eat(ctx)
    if not (yield from get_enclosed(ctx, ctx.memory.get("open_walls", True))):
        ctx.memory["heal_failed"] = ctx.view.step
        ctx.log("no shelter")
        return False
    ctx.log("sheltered")
    for _ in range(300):
        v = ctx.view
        if v.health >= target and not v.sleeping:
            break
        if v.food == 0 or v.drink == 0:
            break
        if not v.sleeping and not ctx.enclosed():
            ctx.log("opened")
            break
        yield Action.NOOP if v.sleeping or v.energy >= 9 else Action.SLEEP
    yield from dig_out(ctx)
    ctx.log("healed" if ctx.view.health >= target else "not healed")
    return ctx.view.health >= target


def may_heal(ctx):
    return ctx.view.step - ctx.memory.get("heal_failed", -1000) > 40 and not ctx.view.sleeping


def note_cows(ctx):
    """Remember where cows were last seen (ctx.recall keeps blocks, not creatures)."""
    cows = [(x, y) for n, x, y in ctx.view.mobs if n == "cow"]
    if cows:
        ctx.memory["cows"] = (cows + [c for c in ctx.memory.get("cows", []) if tuple(c) not in cows])[:8]


def forage(ctx):
    """Eat: a cow in sight, else walk back to where cows were seen, else explore grass."""
    for _ in range(8):
        note_cows(ctx)
        if ctx.view.food > 6:
            return True
        if ctx.nearest("cow") is not None:
            yield from ctx.collect("cow", max_steps=30)
            continue
        seen = ctx.memory.get("cows", [])
        px, py = ctx.view.position
        seen = [c for c in seen if abs(c[0] - px) + abs(c[1] - py) > 3]
        if seen:
            target = min(seen, key=lambda c: abs(c[0] - px) + abs(c[1] - py))
            ctx.memory["cows"] = [c for c in ctx.memory.get("cows", []) if tuple(c) != tuple(target)]
            yield from ctx.go_to(tuple(target), 40, ctx.has("wood_pickaxe"))
            continue
        grass = ctx.recall("grass")
        if grass is not None and ctx.view.block_at(grass[0], grass[1]) == "unknown":
            yield from ctx.go_to(grass, 40, ctx.has("wood_pickaxe"))
        yield from ctx.explore(12, ctx.has("wood_pickaxe"))
    return ctx.view.food > 6


def quench(ctx):
    """Drink: water in sight or remembered, else explore until some shows."""
    for _ in range(6):
        if ctx.view.drink >= 9:
            return True
        water = ctx.nearest("water") or ctx.recall("water")
        if water is not None:
            if not (yield from ctx.go_to(water, 80, ctx.has("wood_pickaxe"))):
                yield from ctx.explore(6, ctx.has("wood_pickaxe"))
                continue
            for _ in range(12):
                if ctx.view.drink >= 9 or not (yield from ctx.collect("water", max_steps=4)):
                    break
            continue
        yield from ctx.explore(12, ctx.has("wood_pickaxe"))
    return ctx.view.drink > 5


def sustain(ctx):
    """Food or drink low: fight what is adjacent, drink, then eat (remembered cows)."""
    ctx.recall("water")
    yield from ctx.defend()
    if ctx.view.drink <= 3:
        yield from quench(ctx)
    if ctx.view.food <= 3:
        yield from forage(ctx)
    ok = ctx.view.food > 3 and ctx.view.drink > 3
    if not ok:
        ctx.memory["sustain_failed"] = ctx.view.step
    return ok


def may_sustain(ctx):
    return ctx.view.step - ctx.memory.get("sustain_failed", -1000) > 30


def hungry3(ctx):
    v = ctx.view
    return (v.food <= 3 or v.drink <= 3) and not v.sleeping and hostile_distance(ctx) > 2 and may_sustain(ctx)


def low3(ctx):
    return ctx.view.health <= 3 and may_heal(ctx)


def hungry3_or_low3(ctx):
    return hungry3(ctx) or low3(ctx)


def sustain_or_heal(ctx):
    if hungry3(ctx):
        return (yield from sustain(ctx))
    return (yield from heal(ctx))


def cd_care3(ctx):
    return (yield from run_code_until(ctx, collect_diamond, hungry3_or_low3, sustain_or_heal, False))


def mip_care3(ctx):
    return (yield from run_code_until(ctx, make_iron_pickaxe, hungry3_or_low3, sustain_or_heal, False))


def mip_care3c(ctx):
    """care3 chosen only where a call of the code starts (every 64 steps at most)."""
    return (yield from run_code_until(ctx, make_iron_pickaxe, hungry3_or_low3, sustain_or_heal, "calls"))


def cd_care3c(ctx):
    return (yield from run_code_until(ctx, collect_diamond, hungry3_or_low3, sustain_or_heal, "calls"))


def care(ctx):
    """Food or drink at 3 or below: drink, eat (cows remembered); else health at 3 or below:
    wall in (dug, walled, or 6 stones on open ground) and wait, asleep while tired, until
    health 8."""
    return (yield from sustain_or_heal(ctx))


def act(ctx):
    return (yield from care(ctx))
