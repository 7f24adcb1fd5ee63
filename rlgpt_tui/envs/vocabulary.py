"""The names Crafter and Craftax-Classic share: actions, achievements, items, blocks, mobs,
stats, and the symbolic observation's layout. Plain data with no imports, so that both the
world interface (:mod:`rlgpt_tui.envs.base`) and its documentation
(:mod:`rlgpt_tui.envs.knowledge`) read them without importing each other."""

# The 17 primitive actions shared by Crafter and Craftax-Classic, in their index order.
ACTION_NAMES: tuple[str, ...] = (
    "noop",
    "move_left",
    "move_right",
    "move_up",
    "move_down",
    "do",
    "sleep",
    "place_stone",
    "place_table",
    "place_furnace",
    "place_plant",
    "make_wood_pickaxe",
    "make_stone_pickaxe",
    "make_iron_pickaxe",
    "make_wood_sword",
    "make_stone_sword",
    "make_iron_sword",
)

# Crafter's 22 achievements, in Craftax-Classic's index order.
ACHIEVEMENTS: tuple[str, ...] = (
    "collect_wood",
    "place_table",
    "eat_cow",
    "collect_sapling",
    "collect_drink",
    "make_wood_pickaxe",
    "make_wood_sword",
    "place_plant",
    "defeat_zombie",
    "collect_stone",
    "place_stone",
    "eat_plant",
    "defeat_skeleton",
    "make_stone_pickaxe",
    "make_stone_sword",
    "wake_up",
    "place_furnace",
    "collect_coal",
    "collect_iron",
    "collect_diamond",
    "make_iron_pickaxe",
    "make_iron_sword",
)

# Inventory items in Craftax-Classic's order (Crafter has the same items).
INVENTORY_ITEMS: tuple[str, ...] = (
    "wood",
    "stone",
    "coal",
    "iron",
    "diamond",
    "sapling",
    "wood_pickaxe",
    "stone_pickaxe",
    "iron_pickaxe",
    "wood_sword",
    "stone_sword",
    "iron_sword",
)

# Block names used in Views, for both backends (Crafter's material names).
BLOCK_NAMES: tuple[str, ...] = (
    "unknown",
    "out_of_bounds",
    "grass",
    "water",
    "stone",
    "tree",
    "wood",
    "path",
    "coal",
    "iron",
    "diamond",
    "table",
    "furnace",
    "sand",
    "lava",
    "plant",
    "ripe_plant",
)
MOB_NAMES: tuple[str, ...] = ("zombie", "cow", "skeleton", "arrow")
#: the player's stats (0-9), numbers on the View, never inventory items
STATS: tuple[str, ...] = ("health", "food", "drink", "energy")
WALKABLE: frozenset[str] = frozenset({"grass", "sand", "path"})

# Facing directions as (dx, dy): x grows to the right, y grows downwards.
FACING_NAMES: dict[tuple[int, int], str] = {
    (-1, 0): "left",
    (1, 0): "right",
    (0, -1): "up",
    (0, 1): "down",
}

VIEW_ROWS = 7
VIEW_COLS = 9
MAP_FEATURES = VIEW_ROWS * VIEW_COLS * (len(BLOCK_NAMES) + len(MOB_NAMES))
# The symbolic observation both backends share (Craftax-Classic's layout), by segment.
OBSERVATION_SEGMENTS: dict[str, slice] = {
    "map": slice(0, MAP_FEATURES),
    "inventory": slice(MAP_FEATURES, MAP_FEATURES + 12),
    "intrinsics": slice(MAP_FEATURES + 12, MAP_FEATURES + 16),
    "direction": slice(MAP_FEATURES + 16, MAP_FEATURES + 20),
    "light": slice(MAP_FEATURES + 20, MAP_FEATURES + 21),
    "sleeping": slice(MAP_FEATURES + 21, MAP_FEATURES + 22),
}
OBSERVATION_SIZE = MAP_FEATURES + 22


HOSTILE_MOBS: tuple[str, ...] = ("zombie", "skeleton", "arrow")
