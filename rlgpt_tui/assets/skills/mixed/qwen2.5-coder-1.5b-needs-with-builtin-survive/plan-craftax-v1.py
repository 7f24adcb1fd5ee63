# /// rlgpt-skill
# name = "plan"
# world = "craftax"
# version = 1
# author = "several authors"
# docstring = "crafter_score: the library's skills composed by rlgpt in the steps' order (survive v1 before each step; collect_wood v1, place_table v1, eat_cow: hit_cow v1, collect_sapling v1, collect_drink: go_to_water v2, make_wood_pickaxe v1, make_wood_sword v1, place_plant v1, collect_stone v1, place_stone v1, make_stone_pickaxe v1, make_stone_sword v1, place_furnace v1, collect_coal v2, collect_iron v1, make_iron_pickaxe v2, collect_diamond v1, make_iron_sword v1, defeat_zombie v1, wake_up: sleep v1; by builtin library, llm:models/qwen2.5-coder-1.5b.gguf); the steps and their skills as in qwen2.5-coder-1.5b-curriculum-iron-needs"
# made_in = "composed by SessionStore.write_plan from this folder's skills (README)"
# ///
"""Tech-tree skills: one generator per catalog task, each obtaining what it needs first.

The builtin fast agent appends `def act(ctx): return (yield from <task>(ctx))` to this file.
Every helper is bounded (fixed loop counts) and returns True when its goal holds.
"""

def survive_rest(ctx):
    """At dusk or when exhausted: wall in (ctx.shelter) and sleep until day comes back."""
    v = ctx.view
    if not v.sleeping and v.daylight > 0.5 and (v.energy > 3):
        return False
    if not v.sleeping and (not ctx.enclosed()) and (not (yield from ctx.shelter())):
        for _ in range(2):
            if ctx.has('stone', 2) or not ctx.has('wood_pickaxe'):
                break
            yield from ctx.collect('stone', max_steps=20)
        stone = ctx.nearest('stone') or ctx.recall('stone')
        if stone is not None:
            yield from ctx.go_to(stone, max_steps=20, dig=ctx.has('wood_pickaxe'))
        if not (yield from ctx.shelter()) and ctx.view.energy > 1:
            return False
    for _ in range(400):
        v = ctx.view
        if v.sleeping:
            yield Action.NOOP
        elif not ctx.enclosed() and v.energy > 1:
            return False
        elif v.energy < 9:
            yield Action.SLEEP
        elif v.daylight < 0.6:
            yield Action.NOOP
        else:
            break
    for _ in range(4):
        if not ctx.enclosed():
            break
        yield from ctx.explore(2, dig=True)
    return True

def survive_recover(ctx):
    """Hurt: fight what is adjacent, wall in (ctx.shelter, mining stone for it when none is
    held) and wait there, asleep while tired (health comes back twice as fast), until
    health is back to 7; False when no shelter could be made."""
    health = 7
    ctx.recall('water')
    yield from ctx.defend()
    if not ctx.view.sleeping and (not ctx.enclosed()) and (not (yield from ctx.shelter())):
        if not ctx.has('stone', 2) and ctx.has('wood_pickaxe'):
            for _ in range(2):
                yield from ctx.collect('stone', max_steps=10)
        if not (yield from ctx.shelter()):
            return False
    for _ in range(300):
        v = ctx.view
        if v.health >= health and (not v.sleeping):
            break
        if not v.sleeping and (not ctx.enclosed()):
            return False
        yield (Action.NOOP if v.sleeping or v.energy >= 9 else Action.SLEEP)
    return ctx.view.health >= health

def survive_fight(ctx):
    """Fight the nearest zombie or skeleton in sight (none: returns at once)."""
    yield from ctx.defend()
    for name in ('zombie', 'skeleton'):
        if ctx.nearest(name) is not None:
            return (yield from survive_hunt(ctx, name, tries=6))
    return False

def survive_drink(ctx):
    water = ctx.nearest('water') or ctx.recall('water')
    if water is None or not (yield from ctx.go_to(water, 80, ctx.has('wood_pickaxe'))):
        return False
    for _ in range(12):
        if ctx.view.drink >= 9 or not (yield from ctx.collect('water', max_steps=4)):
            break
    return True

def survive_eat(ctx):
    for _ in range(6):
        if ctx.view.food > 6:
            return True
        if ctx.nearest('cow') is not None:
            yield from ctx.collect('cow', max_steps=30)
            continue
        grass = ctx.recall('grass')
        if grass is not None and ctx.view.block_at(grass[0], grass[1]) == 'unknown':
            yield from ctx.go_to(grass, 40, ctx.has('wood_pickaxe'))
        yield from ctx.explore(10, ctx.has('wood_pickaxe'))
    return ctx.view.food > 6

def survive_survive(ctx):
    """Fight what is next to the player, sleep safely at night, drink and eat when low."""
    ctx.recall('water')
    yield from ctx.defend()
    yield from survive_rest(ctx)
    if ctx.view.drink <= 5 or (ctx.view.drink <= 7 and ctx.nearest('water') is not None):
        yield from survive_drink(ctx)
    if ctx.view.food <= 4 or (ctx.view.food <= 7 and ctx.nearest('cow') is not None):
        yield from survive_eat(ctx)

def survive_find(ctx, name, tries=8):
    for _ in range(tries):
        yield from survive_survive(ctx)
        if ctx.nearest(name) is not None:
            return True
        seen = ctx.recall(name)
        if seen is not None:
            yield from ctx.go_to(seen, max_steps=40, dig=ctx.has('wood_pickaxe'))
            continue
        yield from ctx.explore(8, dig=name in ('iron', 'diamond', 'coal') and ctx.has('wood_pickaxe'))
    return ctx.nearest(name) is not None

def survive_gather(ctx, block, item, count=1, tries=12):
    for _ in range(tries):
        if ctx.has(item, count):
            return True
        if (yield from survive_find(ctx, block)):
            yield from ctx.collect(block)
    return ctx.has(item, count)

def survive_collect_wood(ctx):
    return (yield from survive_gather(ctx, 'tree', 'wood', 1))

def survive_place_table(ctx):
    for _ in range(6):
        if ctx.is_near('table', 1):
            return True
        yield from survive_gather(ctx, 'tree', 'wood', 2)
        if (yield from ctx.place('table')):
            return True
        yield from survive_gather(ctx, 'tree', 'wood', ctx.inventory['wood'] + 1)
    return ctx.is_near('table', 1)

def survive_workshop(ctx, furnace=False):
    """Stand next to a table (and a furnace): the ones in sight, else newly placed ones."""
    for _ in range(6):
        if ctx.is_near('table', 1) and (not furnace or ctx.is_near('furnace', 1)):
            return True
        yield from survive_survive(ctx)
        if not ctx.is_near('table', 1):
            table = ctx.nearest('table')
            if table is None or not (yield from ctx.go_to(table)):
                yield from survive_place_table(ctx)
        elif furnace:
            yield from survive_gather(ctx, 'stone', 'stone', 1)
            yield from ctx.place('furnace')
    return ctx.is_near('table', 1) and (not furnace or ctx.is_near('furnace', 1))

def survive_make(ctx, tool, needs):
    for _ in range(4):
        if ctx.has(tool):
            return True
        for block, item in needs:
            yield from survive_gather(ctx, block, item, 1)
        yield from survive_workshop(ctx, tool.startswith('iron'))
        yield from ctx.make(tool)
    return ctx.has(tool)

def survive_make_wood_pickaxe(ctx):
    return (yield from survive_make(ctx, 'wood_pickaxe', [('tree', 'wood')]))

def survive_collect_stone(ctx):
    if not (yield from survive_make_wood_pickaxe(ctx)):
        return False
    return (yield from survive_gather(ctx, 'stone', 'stone', 1))

def survive_make_stone_pickaxe(ctx):
    if not (yield from survive_make_wood_pickaxe(ctx)):
        return False
    return (yield from survive_make(ctx, 'stone_pickaxe', [('tree', 'wood'), ('stone', 'stone')]))

def survive_place_furnace(ctx):
    for _ in range(4):
        if ctx.is_near('furnace', 1):
            return True
        if not (yield from survive_make_wood_pickaxe(ctx)):
            return False
        yield from survive_gather(ctx, 'stone', 'stone', 1)
        if (yield from survive_workshop(ctx, True)):
            return True
    return ctx.is_near('furnace', 1)

def survive_arm(ctx):
    """A stone sword: zombies then fall in two hits."""
    if ctx.has('stone_sword'):
        return True
    return (yield from survive_make(ctx, 'stone_sword', [('tree', 'wood'), ('stone', 'stone')]))

def survive_collect_coal(ctx):
    if not (yield from survive_make_wood_pickaxe(ctx)):
        return False
    return (yield from survive_gather(ctx, 'coal', 'coal', 1, tries=20))

def survive_collect_iron(ctx):
    if not (yield from survive_make_stone_pickaxe(ctx)):
        return False
    yield from survive_arm(ctx)
    return (yield from survive_gather(ctx, 'iron', 'iron', 1, tries=30))

def survive_make_iron_pickaxe(ctx):
    if ctx.has('iron_pickaxe'):
        return True
    if not (yield from survive_make_stone_pickaxe(ctx)):
        return False
    yield from survive_arm(ctx)
    needs = [('tree', 'wood', 4), ('coal', 'coal', 1), ('iron', 'iron', 1), ('stone', 'stone', 3)]
    for block, item, count in needs:
        if not (yield from survive_gather(ctx, block, item, count, tries=30)):
            return False
    return (yield from survive_make(ctx, 'iron_pickaxe', [(b, i) for b, i, c in needs]))

def survive_collect_diamond(ctx):
    yield from survive_survive(ctx)
    if not (yield from survive_make_iron_pickaxe(ctx)):
        return False
    return (yield from survive_gather(ctx, 'diamond', 'diamond', 1, tries=60))

def survive_collect_drink(ctx):
    """Find water and drink until the drink stat is full."""
    if not (yield from survive_find(ctx, 'water')):
        return False
    drank = False
    for _ in range(12):
        if ctx.view.drink >= 9 or not (yield from ctx.collect('water', max_steps=8)):
            break
        drank = True
    return drank

def survive_eat_cow(ctx):
    if (yield from survive_find(ctx, 'cow')):
        return (yield from ctx.collect('cow'))
    return False

def survive_make_wood_sword(ctx):
    return (yield from survive_make(ctx, 'wood_sword', [('tree', 'wood')]))

def survive_make_stone_sword(ctx):
    if not (yield from survive_make_wood_pickaxe(ctx)):
        return False
    return (yield from survive_arm(ctx))

def survive_place_stone(ctx):
    """Place a stone (a wall, a bridge over water); mines one first when none is held."""
    if not ctx.has('stone') and (not (yield from survive_collect_stone(ctx))):
        return False
    return (yield from ctx.place('stone'))

def survive_iron_tool(ctx, tool):
    """An iron pickaxe or sword: wood, coal, iron and stone, then a table and a furnace."""
    if ctx.has(tool):
        return True
    if not (yield from survive_make_stone_pickaxe(ctx)):
        return False
    yield from survive_arm(ctx)
    needs = [('tree', 'wood', 3), ('coal', 'coal', 1), ('iron', 'iron', 1), ('stone', 'stone', 3)]
    for block, item, count in needs:
        if not (yield from survive_gather(ctx, block, item, count, tries=30)):
            return False
    return (yield from survive_make(ctx, tool, [(b, i) for b, i, c in needs]))

def survive_make_iron_sword(ctx):
    return (yield from survive_iron_tool(ctx, 'iron_sword'))

def survive_collect_sapling(ctx):
    """Hit grass until a sapling drops (one hit in ten)."""
    for _ in range(8):
        if ctx.has('sapling'):
            return True
        yield from survive_survive(ctx)
        if (yield from survive_find(ctx, 'grass', tries=3)):
            yield from ctx.collect('grass', max_steps=12)
    return ctx.has('sapling')

def survive_place_plant(ctx):
    """Plant a sapling on grass and remember where and when (it ripens 600 steps later)."""
    if not (yield from survive_collect_sapling(ctx)):
        return False
    for _ in range(3):
        if (yield from ctx.place('plant')):
            fx, fy = ctx.view.facing_position
            plants = ctx.memory.get('plants', [])
            ctx.memory['plants'] = plants + [[fx, fy, ctx.view.step]]
            return True
        yield from ctx.explore(2)
    return False

def survive_ripe_plant_in_sight(ctx):
    return ctx.nearest('ripe_plant') is not None

def survive_plant_ready(ctx):
    """A planted sapling should be ripe by now (600 steps), or a ripe one is in sight."""
    if survive_ripe_plant_in_sight(ctx):
        return True
    step = ctx.view.step
    return any((step - planted >= 620 for x, y, planted in ctx.memory.get('plants', [])))

def survive_eat_plant(ctx):
    """Eat a ripe plant: the one in sight, else walk back to a sapling planted long enough
    ago; plant one when none grows. Unripe plants are left alone (hitting them gives
    nothing and in Crafter damages them)."""
    ctx.recall('water')
    if survive_ripe_plant_in_sight(ctx):
        return (yield from ctx.collect('ripe_plant', max_steps=30))
    plants = ctx.memory.get('plants', [])
    if not plants:
        yield from survive_place_plant(ctx)
        return False
    step = ctx.view.step
    for x, y, planted in plants:
        if step - planted < 620:
            continue
        if not (yield from ctx.go_to((x, y), 60, ctx.has('wood_pickaxe'))):
            return False
        block = ctx.view.block_at(x, y)
        if block == 'ripe_plant':
            return (yield from ctx.collect('ripe_plant', max_steps=10))
        if block not in ('plant', 'ripe_plant'):
            ctx.memory['plants'] = [p for p in plants if p[0] != x or p[1] != y]
        return False
    return False

def survive_wake_up(ctx):
    """Wall in and sleep until rested (the wake_up achievement), whatever the hour."""
    v = ctx.view
    if not v.sleeping and v.energy >= 9:
        return False
    if not v.sleeping and (not ctx.enclosed()):
        if not ctx.has('stone'):
            yield from survive_gather(ctx, 'stone', 'stone', 2, tries=4)
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

def survive_hunt(ctx, name, tries=10):
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

def survive_defeat_zombie(ctx):
    """Fight the nearest zombie (with the best sword at hand); zombies roam grass at night."""
    ctx.recall('water')
    for _ in range(4):
        if ctx.nearest('zombie') is not None:
            return (yield from survive_hunt(ctx, 'zombie'))
        yield from ctx.explore(8)
    return False

def survive_defeat_skeleton(ctx):
    """Skeletons live in the dark tunnels of caves: arm, tunnel through stone until one
    shows, then close in and hit it (stepping out of its line of fire is not attempted)."""
    ctx.recall('water')
    if not (yield from survive_make_wood_pickaxe(ctx)):
        return False
    yield from survive_arm(ctx)
    for _ in range(6):
        if ctx.view.health <= 4:
            return False
        if ctx.nearest('skeleton') is not None:
            return (yield from survive_hunt(ctx, 'skeleton'))
        tunnel = ctx.recall('path')
        if tunnel is not None and ctx.view.block_at(*tunnel) == 'unknown':
            yield from ctx.go_to(tunnel, 30, True)
        yield from ctx.explore(10, dig=True)
    return False

def survive_explore(ctx):
    """Walk into new land (the remembered map grows; water, cows and trees are noted)."""
    ctx.recall('water')
    yield from ctx.defend()
    return (yield from ctx.explore(16))

def survive_tunnel_for_ores(ctx):
    """Dig through stone in a steady direction and mine the ores met on the way."""
    ctx.recall('water')
    if not (yield from survive_make_wood_pickaxe(ctx)):
        return False
    for _ in range(4):
        for ore, tool in (('diamond', 'iron_pickaxe'), ('iron', 'stone_pickaxe'), ('coal', '')):
            if (not tool or ctx.has(tool)) and ctx.nearest(ore) is not None:
                return (yield from ctx.collect(ore))
        yield from ctx.explore(12, dig=True)
    return False

def survive_always(ctx):
    return True

def survive_zombie_close(ctx):
    return ctx.nearest('zombie') is not None

def survive_skeleton_worth_it(ctx):
    return ctx.has('stone_sword') and ctx.view.health >= 6

def survive_night_or_tired(ctx):
    return ctx.view.daylight < 0.4 or ctx.view.energy <= 3
PLAN = [('wake_up', survive_wake_up, survive_night_or_tired), ('defeat_zombie', survive_defeat_zombie, survive_zombie_close), ('eat_plant', survive_eat_plant, survive_plant_ready), ('collect_wood', survive_collect_wood, survive_always), ('place_table', survive_place_table, survive_always), ('make_wood_pickaxe', survive_make_wood_pickaxe, survive_always), ('make_wood_sword', survive_make_wood_sword, survive_always), ('collect_sapling', survive_collect_sapling, survive_always), ('place_plant', survive_place_plant, survive_always), ('collect_drink', survive_collect_drink, survive_always), ('collect_stone', survive_collect_stone, survive_always), ('place_stone', survive_place_stone, survive_always), ('make_stone_pickaxe', survive_make_stone_pickaxe, survive_always), ('make_stone_sword', survive_make_stone_sword, survive_always), ('eat_cow', survive_eat_cow, survive_always), ('place_furnace', survive_place_furnace, survive_always), ('collect_coal', survive_collect_coal, survive_always), ('collect_iron', survive_collect_iron, survive_always), ('make_iron_pickaxe', survive_make_iron_pickaxe, survive_always), ('make_iron_sword', survive_make_iron_sword, survive_always), ('collect_diamond', survive_collect_diamond, survive_always), ('defeat_zombie', survive_defeat_zombie, survive_always), ('defeat_skeleton', survive_defeat_skeleton, survive_skeleton_worth_it), ('eat_plant', survive_eat_plant, survive_always)]

def survive_play(ctx):
    """Survive first (fight what is adjacent, shelter and sleep at night, drink and eat),
    then the first achievement of PLAN not yet unlocked whose moment has come."""
    ctx.recall('water')
    yield from survive_survive(ctx)
    done = ctx.view.achievements
    for achievement, skill, ready in PLAN:
        if achievement not in done and ready(ctx):
            yield from skill(ctx)
            return achievement in ctx.view.achievements
    yield from survive_survive(ctx)
    yield from ctx.explore(8)
    return False

def survive_act(ctx):
    return (yield from survive_survive(ctx))


def collect_wood_act(ctx):
    tree = ctx.nearest('tree')
    if tree is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(tree)):
        return False
    yield from ctx.face(tree)
    for _ in range(1):
        yield Action.DO
    return ctx.has('wood')


def place_table_act(ctx):
    free_tile = ctx.nearest('grass', 'sand', 'path')
    if free_tile:
        yield from ctx.face(free_tile)
        yield from ctx.place('table')
    else:
        return None


def eat_cow_act(ctx):
    cow = ctx.nearest('cow')
    if cow is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(cow)):
        return False
    yield from ctx.face(cow)
    for _ in range(3):
        yield Action.DO
    return ctx.has('meat')


def collect_sapling_act(ctx):
    grass = ctx.nearest('grass')
    if grass is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(grass)):
        return False
    yield from ctx.face(grass)
    for _ in range(10):
        yield Action.DO
    return ctx.has('sapling')


def collect_drink_act(ctx):
    water = ctx.nearest('water')
    if water is None:
        return False
    if not (yield from ctx.go_to(water)):
        return False
    yield from ctx.collect('water')
    return True


def make_wood_pickaxe_act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.make('wood_pickaxe')):
        return False
    return (yield from ctx.place('wood_pickaxe'))


def make_wood_sword_act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.make('wood_sword')):
        return False
    return (yield from ctx.place('wood_sword'))


def place_plant_act(ctx):
    free_tile = ctx.nearest('grass')
    if free_tile:
        yield from ctx.face(free_tile)
        yield from ctx.place('plant')
    else:
        return None


def collect_stone_act(ctx):
    stone = ctx.nearest('stone')
    if stone is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(stone)):
        return False
    yield from ctx.face(stone)
    for _ in range(1):
        yield Action.DO
    return ctx.has('wood_pickaxe')


def place_stone_act(ctx):
    free_tile = ctx.nearest('grass', 'sand', 'path')
    if free_tile:
        yield from ctx.face(free_tile)
        yield from ctx.place('stone')
    else:
        return None


def make_stone_pickaxe_act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.make('stone_pickaxe')):
        return False
    return (yield from ctx.place('stone_pickaxe'))


def make_stone_sword_act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.make('stone_sword')):
        return False
    return (yield from ctx.place('stone_sword'))


def place_furnace_act(ctx):
    free_tile = ctx.nearest('grass', 'sand', 'path')
    if free_tile:
        yield from ctx.face(free_tile)
        yield from ctx.place('furnace')
    else:
        return None


def collect_coal_act(ctx):
    coal = ctx.nearest('coal')
    if coal is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(coal)):
        return False
    yield from ctx.face(coal)
    for _ in range(1):
        yield Action.DO
    return ctx.has('coal')


def collect_iron_act(ctx):
    for _ in range(3):
        yield from ctx.collect('iron')
        yield from ctx.make('iron_pickaxe')
        yield from ctx.make('iron_sword')


def make_iron_pickaxe_act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.make('stone_pickaxe')):
        return False
    if not (yield from ctx.make('iron_pickaxe')):
        return False
    return (yield from ctx.place('iron_pickaxe'))


def collect_diamond_act(ctx):
    while True:
        if not (yield from ctx.collect('diamond')):
            return False
        yield from ctx.face('diamond')
        yield Action.DO
        if ctx.has('diamond'):
            return True


def make_iron_sword_act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.make('iron_sword')):
        return False
    return (yield from ctx.place('iron_sword'))


def defeat_zombie_act(ctx):
    zombie = ctx.nearest('zombie')
    if zombie is None:
        return False
    if not (yield from ctx.go_to(zombie)):
        return False
    yield from ctx.collect('zombie')
    return True


def wake_up_act(ctx):
    while ctx.inventory.get('energy', 0) < 9:
        yield Action.SLEEP
    return False


def act(ctx):
    if not ctx.has('wood', 8):
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('collect_wood')
        try:
            yield from collect_wood_act(ctx)
        except Exception as error:
            ctx.log(f'collect_wood failed: {error}')
    if ctx.has('wood') and ctx.nearest('table') is None:
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('place_table')
        try:
            yield from place_table_act(ctx)
        except Exception as error:
            ctx.log(f'place_table failed: {error}')
    if (ctx.view.food <= 4 or ctx.view.food <= 7 and ctx.nearest('cow') is not None):
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('eat_cow')
        try:
            yield from eat_cow_act(ctx)
        except Exception as error:
            ctx.log(f'eat_cow failed: {error}')
    if not ctx.has('sapling', 1):
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('collect_sapling')
        try:
            yield from collect_sapling_act(ctx)
        except Exception as error:
            ctx.log(f'collect_sapling failed: {error}')
    if (ctx.view.drink <= 4 or ctx.view.drink <= 7 and ctx.nearest('water') is not None):
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('collect_drink')
        try:
            yield from collect_drink_act(ctx)
        except Exception as error:
            ctx.log(f'collect_drink failed: {error}')
    if ctx.has('wood') and not ctx.has('wood_pickaxe'):
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('make_wood_pickaxe')
        try:
            yield from make_wood_pickaxe_act(ctx)
        except Exception as error:
            ctx.log(f'make_wood_pickaxe failed: {error}')
    if ctx.has('wood') and not ctx.has('wood_sword'):
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('make_wood_sword')
        try:
            yield from make_wood_sword_act(ctx)
        except Exception as error:
            ctx.log(f'make_wood_sword failed: {error}')
    if ctx.has('sapling') and 'place_plant' not in ctx.view.achievements:
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('place_plant')
        try:
            yield from place_plant_act(ctx)
        except Exception as error:
            ctx.log(f'place_plant failed: {error}')
    if ctx.has('wood_pickaxe') and not ctx.has('stone', 6):
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('collect_stone')
        try:
            yield from collect_stone_act(ctx)
        except Exception as error:
            ctx.log(f'collect_stone failed: {error}')
    if ctx.has('stone') and 'place_stone' not in ctx.view.achievements:
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('place_stone')
        try:
            yield from place_stone_act(ctx)
        except Exception as error:
            ctx.log(f'place_stone failed: {error}')
    if ctx.has('wood') and ctx.has('stone') and not ctx.has('stone_pickaxe'):
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('make_stone_pickaxe')
        try:
            yield from make_stone_pickaxe_act(ctx)
        except Exception as error:
            ctx.log(f'make_stone_pickaxe failed: {error}')
    if ctx.has('wood') and ctx.has('stone') and not ctx.has('stone_sword'):
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('make_stone_sword')
        try:
            yield from make_stone_sword_act(ctx)
        except Exception as error:
            ctx.log(f'make_stone_sword failed: {error}')
    if ctx.has('stone') and ctx.nearest('furnace') is None:
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('place_furnace')
        try:
            yield from place_furnace_act(ctx)
        except Exception as error:
            ctx.log(f'place_furnace failed: {error}')
    if ctx.has('wood_pickaxe') and not ctx.has('coal', 2):
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('collect_coal')
        try:
            yield from collect_coal_act(ctx)
        except Exception as error:
            ctx.log(f'collect_coal failed: {error}')
    if ctx.has('stone_pickaxe') and not ctx.has('iron', 2):
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('collect_iron')
        try:
            yield from collect_iron_act(ctx)
        except Exception as error:
            ctx.log(f'collect_iron failed: {error}')
    if ctx.has('wood') and ctx.has('stone') and ctx.has('coal') and ctx.has('iron') and not ctx.has('iron_pickaxe'):
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('make_iron_pickaxe')
        try:
            yield from make_iron_pickaxe_act(ctx)
        except Exception as error:
            ctx.log(f'make_iron_pickaxe failed: {error}')
    if ctx.has('iron_pickaxe'):
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('collect_diamond')
        try:
            yield from collect_diamond_act(ctx)
        except Exception as error:
            ctx.log(f'collect_diamond failed: {error}')
    if ctx.has('wood') and ctx.has('stone') and ctx.has('coal') and ctx.has('iron') and not ctx.has('iron_sword'):
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('make_iron_sword')
        try:
            yield from make_iron_sword_act(ctx)
        except Exception as error:
            ctx.log(f'make_iron_sword failed: {error}')
    try:
        yield from survive_act(ctx)
    except Exception as error:
        ctx.log(f'survive failed: {error}')
    ctx.begin_step('defeat_zombie')
    try:
        yield from defeat_zombie_act(ctx)
    except Exception as error:
        ctx.log(f'defeat_zombie failed: {error}')
    if (ctx.view.energy <= 4):
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('wake_up')
        try:
            yield from wake_up_act(ctx)
        except Exception as error:
            ctx.log(f'wake_up failed: {error}')
