# /// rlgpt-skill
# name = "plan"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "the model's 5 coded steps in its plan's order (newest versions), composed by rlgpt"
# made_in = "session 1, iteration 3"
# ///
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
    yield from ctx.face((ctx.view.facing_position[0] + 1, ctx.view.facing_position[1]))
    yield from ctx.place('table')


def make_wood_pickaxe_act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table, max_steps=30, dig=False)):
        return False
    return (yield from ctx.make('wood_pickaxe'))


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


def make_stone_pickaxe_act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table, max_steps=30, dig=False)):
        return False
    if not (yield from ctx.make('stone_pickaxe')):
        return False
    return (yield from ctx.face(table))


def act(ctx):
    ctx.begin_step('collect_wood')
    try:
        yield from collect_wood_act(ctx)
    except Exception as error:
        ctx.log(f'collect_wood failed: {error}')
    if ctx.nearest('table') is None:
        ctx.begin_step('place_table')
        try:
            yield from place_table_act(ctx)
        except Exception as error:
            ctx.log(f'place_table failed: {error}')
    if not ctx.has('wood_pickaxe'):
        ctx.begin_step('make_wood_pickaxe')
        try:
            yield from make_wood_pickaxe_act(ctx)
        except Exception as error:
            ctx.log(f'make_wood_pickaxe failed: {error}')
    ctx.begin_step('collect_stone')
    try:
        yield from collect_stone_act(ctx)
    except Exception as error:
        ctx.log(f'collect_stone failed: {error}')
    if not ctx.has('stone_pickaxe'):
        ctx.begin_step('make_stone_pickaxe')
        try:
            yield from make_stone_pickaxe_act(ctx)
        except Exception as error:
            ctx.log(f'make_stone_pickaxe failed: {error}')
