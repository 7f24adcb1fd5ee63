# /// rlgpt-skill
# name = "plan"
# world = "craftax"
# version = 1
# author = "several authors"
# docstring = "crafter_score: the library's skills composed by rlgpt in the steps' order (survive_night policy #9 when survival is due (health <= 4 or food <= 3 or drink <= 3 or energy <= 2 or ctx.is_near('zombie') or ctx.is_near('skeleton')); collect_wood v1, place_table v1, eat_cow: hit_cow v1, collect_sapling v1, collect_drink v1, make_wood_pickaxe v1, collect_stone v3, collect_coal v1, defeat_zombie: go_to_grass v1; by PPO (trained policy), llm:qwen2.5-coder-1.5b)"
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
    yield from ctx.collect('wood', max_steps=40)
    yield from ctx.place('table')


def eat_cow_act(ctx):
    cow = ctx.nearest('cow')
    if cow is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(cow)):
        return False
    yield from ctx.face(cow)
    for _ in range(1):
        yield Action.DO
    return ctx.has('wood')


def collect_sapling_act(ctx):
    grass = ctx.nearest('grass')
    if grass is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(grass)):
        return False
    yield from ctx.face(grass)
    for _ in range(1):
        yield Action.DO
    return ctx.has('sapling')


def collect_drink_act(ctx):
    if not (yield from ctx.collect('water')):
        return False
    yield from ctx.face('water')
    yield Action.DO
    return ctx.view.drink > 0


def make_wood_pickaxe_act(ctx):
    table = ctx.nearest('table')
    if table is None:
        return False
    if not (yield from ctx.go_to(table)):
        return False
    return (yield from ctx.make('wood_pickaxe'))


def collect_stone_act(ctx):
    if not (yield from ctx.collect('stone')):
        return False
    yield from ctx.face('stone')
    for _ in range(1):
        yield Action.DO
    return ctx.view.drink > 0


def collect_coal_act(ctx):
    if not (yield from ctx.collect('coal')):
        return False
    yield from ctx.face('coal')
    yield Action.DO
    return ctx.view.drink > 0


def defeat_zombie_act(ctx):
    if not (yield from ctx.collect('wood')):
        return False
    yield from ctx.face('wood')
    yield Action.DO
    return ctx.view.drink > 0


def survival_due(ctx):
    """Survival is due: a vital at or below its level, or a hostile adjacent
    (rlgpt_tui.skills.guard.SurvivalGuard)."""
    return (
        ctx.view.health <= 4
        or ctx.view.food <= 3
        or ctx.view.drink <= 3
        or ctx.view.energy <= 2
        or ctx.is_near('zombie')
        or ctx.is_near('skeleton')
    )


def act(ctx):
    if not ctx.has('wood', 3):
        if survival_due(ctx):
            ctx.begin_step('survive')
            try:
                yield from ctx.skill('survive')
            except Exception as error:
                ctx.log(f'survive failed: {error}')
        ctx.begin_step('collect_wood')
        try:
            yield from collect_wood_act(ctx)
        except Exception as error:
            ctx.log(f'collect_wood failed: {error}')
    if ctx.has('wood') and ctx.nearest('table') is None:
        if survival_due(ctx):
            ctx.begin_step('survive')
            try:
                yield from ctx.skill('survive')
            except Exception as error:
                ctx.log(f'survive failed: {error}')
        ctx.begin_step('place_table')
        try:
            yield from place_table_act(ctx)
        except Exception as error:
            ctx.log(f'place_table failed: {error}')
    if (ctx.view.food <= 4 or ctx.view.food <= 7 and ctx.nearest('cow') is not None):
        if survival_due(ctx):
            ctx.begin_step('survive')
            try:
                yield from ctx.skill('survive')
            except Exception as error:
                ctx.log(f'survive failed: {error}')
        ctx.begin_step('eat_cow')
        try:
            yield from eat_cow_act(ctx)
        except Exception as error:
            ctx.log(f'eat_cow failed: {error}')
    if survival_due(ctx):
        ctx.begin_step('survive')
        try:
            yield from ctx.skill('survive')
        except Exception as error:
            ctx.log(f'survive failed: {error}')
    ctx.begin_step('collect_sapling')
    try:
        yield from collect_sapling_act(ctx)
    except Exception as error:
        ctx.log(f'collect_sapling failed: {error}')
    if (ctx.view.drink <= 4 or ctx.view.drink <= 7 and ctx.nearest('water') is not None):
        if survival_due(ctx):
            ctx.begin_step('survive')
            try:
                yield from ctx.skill('survive')
            except Exception as error:
                ctx.log(f'survive failed: {error}')
        ctx.begin_step('collect_drink')
        try:
            yield from collect_drink_act(ctx)
        except Exception as error:
            ctx.log(f'collect_drink failed: {error}')
    if ctx.has('wood') and not ctx.has('wood_pickaxe'):
        if survival_due(ctx):
            ctx.begin_step('survive')
            try:
                yield from ctx.skill('survive')
            except Exception as error:
                ctx.log(f'survive failed: {error}')
        ctx.begin_step('make_wood_pickaxe')
        try:
            yield from make_wood_pickaxe_act(ctx)
        except Exception as error:
            ctx.log(f'make_wood_pickaxe failed: {error}')
    if ctx.has('wood_pickaxe'):
        if survival_due(ctx):
            ctx.begin_step('survive')
            try:
                yield from ctx.skill('survive')
            except Exception as error:
                ctx.log(f'survive failed: {error}')
        ctx.begin_step('collect_stone')
        try:
            yield from collect_stone_act(ctx)
        except Exception as error:
            ctx.log(f'collect_stone failed: {error}')
    if ctx.has('wood_pickaxe'):
        if survival_due(ctx):
            ctx.begin_step('survive')
            try:
                yield from ctx.skill('survive')
            except Exception as error:
                ctx.log(f'survive failed: {error}')
        ctx.begin_step('collect_coal')
        try:
            yield from collect_coal_act(ctx)
        except Exception as error:
            ctx.log(f'collect_coal failed: {error}')
    if survival_due(ctx):
        ctx.begin_step('survive')
        try:
            yield from ctx.skill('survive')
        except Exception as error:
            ctx.log(f'survive failed: {error}')
    ctx.begin_step('defeat_zombie')
    try:
        yield from defeat_zombie_act(ctx)
    except Exception as error:
        ctx.log(f'defeat_zombie failed: {error}')
