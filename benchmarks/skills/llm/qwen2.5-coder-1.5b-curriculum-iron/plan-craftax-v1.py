# /// rlgpt-skill
# name = "plan"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "library skills composed in the world's step order"
# made_in = ""
# ///
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


def act(ctx):
    if not ctx.has('wood', 8):
        ctx.begin_step('collect_wood')
        try:
            yield from collect_wood_act(ctx)
        except Exception as error:
            ctx.log(f'collect_wood failed: {error}')
    if ctx.has('wood') and ctx.nearest('table') is None:
        ctx.begin_step('place_table')
        try:
            yield from place_table_act(ctx)
        except Exception as error:
            ctx.log(f'place_table failed: {error}')
    if not ctx.has('sapling', 1):
        ctx.begin_step('collect_sapling')
        try:
            yield from collect_sapling_act(ctx)
        except Exception as error:
            ctx.log(f'collect_sapling failed: {error}')
    if ctx.has('wood') and not ctx.has('wood_pickaxe'):
        ctx.begin_step('make_wood_pickaxe')
        try:
            yield from make_wood_pickaxe_act(ctx)
        except Exception as error:
            ctx.log(f'make_wood_pickaxe failed: {error}')
    if ctx.has('wood') and not ctx.has('wood_sword'):
        ctx.begin_step('make_wood_sword')
        try:
            yield from make_wood_sword_act(ctx)
        except Exception as error:
            ctx.log(f'make_wood_sword failed: {error}')
    if ctx.has('sapling') and 'place_plant' not in ctx.view.achievements:
        ctx.begin_step('place_plant')
        try:
            yield from place_plant_act(ctx)
        except Exception as error:
            ctx.log(f'place_plant failed: {error}')
    if ctx.has('wood_pickaxe') and not ctx.has('stone', 6):
        ctx.begin_step('collect_stone')
        try:
            yield from collect_stone_act(ctx)
        except Exception as error:
            ctx.log(f'collect_stone failed: {error}')
    if ctx.has('stone') and 'place_stone' not in ctx.view.achievements:
        ctx.begin_step('place_stone')
        try:
            yield from place_stone_act(ctx)
        except Exception as error:
            ctx.log(f'place_stone failed: {error}')
    if ctx.has('wood') and ctx.has('stone') and not ctx.has('stone_pickaxe'):
        ctx.begin_step('make_stone_pickaxe')
        try:
            yield from make_stone_pickaxe_act(ctx)
        except Exception as error:
            ctx.log(f'make_stone_pickaxe failed: {error}')
    if ctx.has('wood') and ctx.has('stone') and not ctx.has('stone_sword'):
        ctx.begin_step('make_stone_sword')
        try:
            yield from make_stone_sword_act(ctx)
        except Exception as error:
            ctx.log(f'make_stone_sword failed: {error}')
    if ctx.has('stone') and ctx.nearest('furnace') is None:
        ctx.begin_step('place_furnace')
        try:
            yield from place_furnace_act(ctx)
        except Exception as error:
            ctx.log(f'place_furnace failed: {error}')
    if ctx.has('wood_pickaxe') and not ctx.has('coal', 2):
        ctx.begin_step('collect_coal')
        try:
            yield from collect_coal_act(ctx)
        except Exception as error:
            ctx.log(f'collect_coal failed: {error}')
    if ctx.has('stone_pickaxe') and not ctx.has('iron', 2):
        ctx.begin_step('collect_iron')
        try:
            yield from collect_iron_act(ctx)
        except Exception as error:
            ctx.log(f'collect_iron failed: {error}')
    if ctx.has('wood') and ctx.has('stone') and ctx.has('coal') and ctx.has('iron') and not ctx.has('iron_pickaxe'):
        ctx.begin_step('make_iron_pickaxe')
        try:
            yield from make_iron_pickaxe_act(ctx)
        except Exception as error:
            ctx.log(f'make_iron_pickaxe failed: {error}')
    if ctx.has('iron_pickaxe'):
        ctx.begin_step('collect_diamond')
        try:
            yield from collect_diamond_act(ctx)
        except Exception as error:
            ctx.log(f'collect_diamond failed: {error}')
    if ctx.has('wood') and ctx.has('stone') and ctx.has('coal') and ctx.has('iron') and not ctx.has('iron_sword'):
        ctx.begin_step('make_iron_sword')
        try:
            yield from make_iron_sword_act(ctx)
        except Exception as error:
            ctx.log(f'make_iron_sword failed: {error}')
    ctx.begin_step('defeat_zombie')
    try:
        yield from defeat_zombie_act(ctx)
    except Exception as error:
        ctx.log(f'defeat_zombie failed: {error}')
