# /// rlgpt-skill
# name = "plan"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "the model's 16 coded steps in its plan's order, composed by rlgpt (compose_sources: round guards, each step's error logged)"
# made_in = "session 1, iteration 1"
# ///
def collect_wood_act(ctx):
    tree = ctx.nearest('tree')
    if tree is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(tree)):
        return False
    yield from ctx.face(tree)
    for _ in range(9):
        yield Action.DO
    return ctx.has('wood')


def place_table_act(ctx):
    yield from ctx.place('table')


def eat_cow_act(ctx):
    while True:
        if not (yield from ctx.collect('cow')):
            return False
        yield from ctx.face('cow')
        yield Action.DO
        if ctx.has('cow'):
            return True


def collect_sapling_act(ctx):
    grass = ctx.nearest('grass')
    if grass is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(grass)):
        return False
    yield from ctx.face(grass)
    for _ in range(2):
        yield Action.DO
    return ctx.has('sapling')


def make_wood_pickaxe_act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    return (yield from ctx.make('wood_pickaxe'))


def make_wood_sword_act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    return (yield from ctx.make('wood_sword'))


def place_plant_act(ctx):
    if ctx.is_near('table') and ctx.is_near('furnace'):
        yield from ctx.shelter()
    else:
        yield from ctx.place('plant')


def collect_stone_act(ctx):
    stone = ctx.nearest('stone')
    if stone is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(stone)):
        return False
    yield from ctx.face(stone)
    for _ in range(7):
        yield Action.DO
    return ctx.has('stone')


def place_stone_act(ctx):
    while True:
        free_tile = ctx.nearest('grass', 'sand', 'path', 'water', 'lava')
        if free_tile:
            yield from ctx.place('stone')
            return
        else:
            yield from ctx.explore(steps=8, dig=False)


def make_stone_pickaxe_act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    return (yield from ctx.make('stone_pickaxe'))


def make_stone_sword_act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    return (yield from ctx.make('stone_sword'))


def place_furnace_act(ctx):
    if ctx.is_near('table') or ctx.is_near('furnace'):
        return (yield from ctx.place('furnace'))
    else:
        return (yield from ctx.place('table'))


def collect_coal_act(ctx):
    coal = ctx.nearest('coal')
    if coal is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(coal)):
        return False
    yield from ctx.face(coal)
    for _ in range(3):
        yield Action.DO
    return ctx.has('coal')


def make_iron_pickaxe_act(ctx):
    table = ctx.nearest('table')
    furnace = ctx.nearest('furnace')
    if table is None or furnace is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.go_to(furnace)):
        return False
    return (yield from ctx.make('iron_pickaxe'))


def collect_diamond_act(ctx):
    if not (yield from ctx.collect('diamond')):
        return False
    return True


def shelter_act(ctx):
    while not ctx.enclosed() and (not ctx.is_near('table')) and (not ctx.is_near('furnace')):
        yield from ctx.explore(8)
    yield from ctx.shelter()


def act(ctx):
    try:
        yield from collect_wood_act(ctx)
    except Exception as error:
        ctx.log(f'collect_wood failed: {error}')
    if ctx.nearest('table') is None:
        try:
            yield from place_table_act(ctx)
        except Exception as error:
            ctx.log(f'place_table failed: {error}')
    try:
        yield from eat_cow_act(ctx)
    except Exception as error:
        ctx.log(f'eat_cow failed: {error}')
    try:
        yield from collect_sapling_act(ctx)
    except Exception as error:
        ctx.log(f'collect_sapling failed: {error}')
    if not ctx.has('wood_pickaxe'):
        try:
            yield from make_wood_pickaxe_act(ctx)
        except Exception as error:
            ctx.log(f'make_wood_pickaxe failed: {error}')
    if not ctx.has('wood_sword'):
        try:
            yield from make_wood_sword_act(ctx)
        except Exception as error:
            ctx.log(f'make_wood_sword failed: {error}')
    if 'place_plant' not in ctx.view.achievements:
        try:
            yield from place_plant_act(ctx)
        except Exception as error:
            ctx.log(f'place_plant failed: {error}')
    try:
        yield from collect_stone_act(ctx)
    except Exception as error:
        ctx.log(f'collect_stone failed: {error}')
    if 'place_stone' not in ctx.view.achievements:
        try:
            yield from place_stone_act(ctx)
        except Exception as error:
            ctx.log(f'place_stone failed: {error}')
    if not ctx.has('stone_pickaxe'):
        try:
            yield from make_stone_pickaxe_act(ctx)
        except Exception as error:
            ctx.log(f'make_stone_pickaxe failed: {error}')
    if not ctx.has('stone_sword'):
        try:
            yield from make_stone_sword_act(ctx)
        except Exception as error:
            ctx.log(f'make_stone_sword failed: {error}')
    if ctx.nearest('furnace') is None:
        try:
            yield from place_furnace_act(ctx)
        except Exception as error:
            ctx.log(f'place_furnace failed: {error}')
    try:
        yield from collect_coal_act(ctx)
    except Exception as error:
        ctx.log(f'collect_coal failed: {error}')
    if not ctx.has('iron_pickaxe'):
        try:
            yield from make_iron_pickaxe_act(ctx)
        except Exception as error:
            ctx.log(f'make_iron_pickaxe failed: {error}')
    try:
        yield from collect_diamond_act(ctx)
    except Exception as error:
        ctx.log(f'collect_diamond failed: {error}')
    try:
        yield from shelter_act(ctx)
    except Exception as error:
        ctx.log(f'shelter failed: {error}')
