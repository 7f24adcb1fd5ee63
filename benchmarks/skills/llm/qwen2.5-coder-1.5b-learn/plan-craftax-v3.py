# /// rlgpt-skill
# name = "plan"
# world = "craftax"
# version = 3
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "crafter_score: the library's skills composed by rlgpt in the steps' order (survive v2 before each step; collect_wood v1, place_table v1, eat_cow v1, collect_sapling v1, collect_drink v1, make_wood_pickaxe v1, make_wood_sword v1, place_plant v1, collect_stone v1, place_stone v1, make_stone_pickaxe v2, make_stone_sword v1, collect_coal v2, collect_iron v1, defeat_zombie: go_to_grass v1, wake_up: collect_water v1; by llm:qwen2.5-coder-1.5b)"
# made_in = "composed by rlgpt at export from the library's skills"
# ///
def survive_act(ctx):
    if not (yield from ctx.collect('water')):
        return False
    yield from ctx.make('wood_pickaxe')
    yield from ctx.make('stone_pickaxe')
    yield from ctx.make('iron_pickaxe')
    return True


def collect_wood_act(ctx):
    tree = ctx.nearest('tree')
    if tree is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(tree)):
        return False
    yield from ctx.face(tree)
    for _ in range(4):
        yield Action.DO
    return ctx.has('wood')


def place_table_act(ctx):
    yield from ctx.face((3, 4))
    yield from ctx.place('table')


def eat_cow_act(ctx):
    if not (yield from ctx.collect('tree')):
        return False
    yield from ctx.place('stone')
    return True


def collect_sapling_act(ctx):
    if not (yield from ctx.collect('grass')):
        return False
    yield from ctx.place('sapling')
    return True


def collect_drink_act(ctx):
    if not (yield from ctx.collect('water')):
        return False
    yield from ctx.make('wood_pickaxe')
    yield from ctx.make('stone_pickaxe')
    return True


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
    yield from ctx.face((3, 4))
    yield from ctx.place('plant')


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
    return ctx.has('stone')


def place_stone_act(ctx):
    yield from ctx.face((3, 4))
    yield from ctx.place('stone')


def make_stone_pickaxe_act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.collect('sapling')):
        return False
    return (yield from ctx.make('stone_pickaxe'))


def make_stone_sword_act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    return (yield from ctx.make('stone_sword'))


def collect_coal_act(ctx):
    coal = ctx.nearest('coal')
    if coal is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(coal, dig=True)):
        return False
    yield from ctx.face(coal)
    while not (yield from ctx.collect('wood_pickaxe')):
        pass
    yield from ctx.collect('coal')


def collect_iron_act(ctx):
    if not (yield from ctx.collect('iron')):
        return False
    yield from ctx.make('wood_pickaxe')
    yield from ctx.make('stone_pickaxe')
    return True


def defeat_zombie_act(ctx):
    grass = ctx.nearest('grass')
    if grass is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(grass)):
        return False
    yield from ctx.face(grass)
    for _ in range(1):
        yield Action.DO
    return ctx.has('wood')


def wake_up_act(ctx):
    if not (yield from ctx.collect('water')):
        return False
    yield from ctx.make('wood_pickaxe')
    yield from ctx.make('stone_pickaxe')
    return True


def act(ctx):
    if not ctx.has('wood', 6):
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
    if ctx.has('wood_pickaxe') and not ctx.has('stone', 3):
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
    if ctx.has('wood_pickaxe'):
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('collect_coal')
        try:
            yield from collect_coal_act(ctx)
        except Exception as error:
            ctx.log(f'collect_coal failed: {error}')
    if ctx.has('stone_pickaxe'):
        try:
            yield from survive_act(ctx)
        except Exception as error:
            ctx.log(f'survive failed: {error}')
        ctx.begin_step('collect_iron')
        try:
            yield from collect_iron_act(ctx)
        except Exception as error:
            ctx.log(f'collect_iron failed: {error}')
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
