# /// rlgpt-skill
# name = "plan"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "collect_coal: the library's skills composed by rlgpt in the steps' order (collect_wood v1, place_table v1, make_wood_pickaxe v1, collect_coal v1; by llm:models/qwen2.5-coder-1.5b.gguf)"
# made_in = "composed by rlgpt at export from the library's skills"
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


def make_wood_pickaxe_act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    if not (yield from ctx.make('wood_pickaxe')):
        return False
    if not (yield from ctx.make('place_stone', 1)):
        return False
    return (yield from ctx.place('wood_pickaxe'))


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


def act(ctx):
    if not ctx.has('wood', 3):
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
    if ctx.has('wood') and not ctx.has('wood_pickaxe'):
        ctx.begin_step('make_wood_pickaxe')
        try:
            yield from make_wood_pickaxe_act(ctx)
        except Exception as error:
            ctx.log(f'make_wood_pickaxe failed: {error}')
    if ctx.has('wood_pickaxe'):
        ctx.begin_step('collect_coal')
        try:
            yield from collect_coal_act(ctx)
        except Exception as error:
            ctx.log(f'collect_coal failed: {error}')
