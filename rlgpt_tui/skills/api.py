"""The skill API that coded actions use: ``Action`` and the ``ctx`` passed to ``act(ctx)``.

A coded action is a generator over the View::

    def act(ctx):
        tree = ctx.nearest("tree")
        if tree is None:
            yield from ctx.explore(6)
            return
        yield from ctx.go_to(tree)
        yield from ctx.face(tree)
        yield Action.DO

Each ``yield`` performs one primitive action; afterwards ``ctx.view`` is the new View.
Helpers that act (``go_to``, ``face``, ``explore``, ``collect``, ``place``, ``make``) are
generators: use them with ``yield from``. Their return value tells whether they succeeded.
"""

from __future__ import annotations

import difflib
import functools
import random
from collections import deque
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, cast

from rlgpt_tui.envs.base import (
    BLOCK_NAMES,
    INVENTORY_ITEMS,
    MOB_NAMES,
    VIEW_COLS,
    VIEW_ROWS,
    WALKABLE,
    View,
)
from rlgpt_tui.skills.checker import end_budget
from rlgpt_tui.skills.grid import Paths, nearest_tile, shortest_paths, visible_blocks
from rlgpt_tui.skills.outcomes import bounded_text
from rlgpt_tui.skills.policy import POLICY_MARK, PolicySkill, run_policy


class Action(IntEnum):
    """Primitive actions by name: Action.DO, Action.MOVE_LEFT, ... (17 in all)."""

    NOOP = 0
    MOVE_LEFT = 1
    MOVE_RIGHT = 2
    MOVE_UP = 3
    MOVE_DOWN = 4
    DO = 5
    SLEEP = 6
    PLACE_STONE = 7
    PLACE_TABLE = 8
    PLACE_FURNACE = 9
    PLACE_PLANT = 10
    MAKE_WOOD_PICKAXE = 11
    MAKE_STONE_PICKAXE = 12
    MAKE_IRON_PICKAXE = 13
    MAKE_WOOD_SWORD = 14
    MAKE_STONE_SWORD = 15
    MAKE_IRON_SWORD = 16


MAX_STEPS_BEGUN, MAX_STEP_NAME = 32, 60  # a call's ctx.begin_step record: steps, name length
MAX_NOTES, MAX_NOTE = 20, 200  # a call's ctx.log record: notes, characters each

Position = tuple[int, int]
Steps = Generator[int, None, bool]

MOVES: dict[Position, Action] = {
    (-1, 0): Action.MOVE_LEFT,
    (1, 0): Action.MOVE_RIGHT,
    (0, -1): Action.MOVE_UP,
    (0, 1): Action.MOVE_DOWN,
}
# blocks a pickaxe turns into path (the tool each needs is checked by the game)
MINEABLE: frozenset[str] = frozenset({"stone", "coal", "iron", "diamond"})
HOSTILE: frozenset[str] = frozenset({"zombie", "skeleton"})
PLACEABLE_ON: dict[str, frozenset[str]] = {
    "stone": frozenset({"grass", "sand", "path", "water", "lava"}),
    "table": frozenset({"grass", "sand", "path"}),
    "furnace": frozenset({"grass", "sand", "path"}),
    "plant": frozenset({"grass"}),
}

SKILL_API_DOC = """\
Coded actions are Python generators `def act(ctx): ... yield Action.DO`. Each yield performs
one primitive action; then `ctx.view` holds the new observation. Helpers that act are
generators: call them with `yield from` (their return value is True on success).
- Action.NOOP, Action.MOVE_LEFT/RIGHT/UP/DOWN, Action.DO, Action.SLEEP, Action.PLACE_STONE,
  Action.PLACE_TABLE, Action.PLACE_FURNACE, Action.PLACE_PLANT, Action.MAKE_WOOD_PICKAXE,
  Action.MAKE_STONE_PICKAXE, Action.MAKE_IRON_PICKAXE, Action.MAKE_WOOD_SWORD,
  Action.MAKE_STONE_SWORD, Action.MAKE_IRON_SWORD.
- ctx.view: position (x, y), facing (dx, dy), grid (7 rows x 9 cols of block names, player at
  grid[3][4]), mobs [(name, x, y)], inventory {item: count}, health, food, drink, energy,
  daylight, sleeping, achievements. ctx.view.block_at(x, y), ctx.view.facing_position.
- ctx.inventory: the inventory dict; ctx.has(item, count=1) -> bool.
- ctx.nearest(*names) -> (x, y) or None: the closest visible block or creature of those names
  (e.g. "tree", "water", "stone", "cow", "table"), preferring reachable ones.
- ctx.is_near(name, distance=1) -> bool: a block of that name within `distance` tiles.
- ctx.recall(*names) -> (x, y) or None: the closest block of those names seen so far in this
  episode (a map of every View so far), e.g. water or a table out of sight.
  ctx.enclosed() -> bool: no mob can reach the player (the walkable tiles around it are
  walled off).
- yield from ctx.go_to((x, y), max_steps=30, dig=False): walk until next to that position
  (far targets: over remembered tiles); dig=True mines stone/ores in the way (needs pickaxes).
- yield from ctx.face((x, y)): turn toward an adjacent position.
- yield from ctx.explore(steps=8, dig=False): walk in a persistent random direction to see
  new area; dig=True tunnels through stone (never into lava or water).
- go_to, explore and collect first fight off a zombie or skeleton next to the player.
  yield from ctx.defend(): face and hit an adjacent zombie/skeleton until it is gone.
- yield from ctx.shelter(): dig or wall in (placing stone) until ctx.enclosed(); then
  `yield Action.SLEEP` is safe at night (a sleeping player takes 7 damage per zombie hit).
- yield from ctx.collect(name, max_steps=40): find, reach, face and `do` a block or creature
  until the inventory, achievements, food or drink change.
- yield from ctx.place(item): place "table", "furnace", "stone" or "plant" on a free tile.
- yield from ctx.make(item): craft e.g. "wood_pickaxe" at a table (iron tools: a table and a
  furnace), first walking back to the ones seen in this episode when none is next to you.
- yield from ctx.skill("name"): run a skill of the session's library (the request lists
  them) and get its result (True on success); the library's best-proven version runs, its
  validated code or its trained policy (which acts until the skill's goal is met or its
  step budget ends; its steps count against this action's budget), not a copy you rewrite.
- ctx.memory: a dict kept across calls of this action within one episode.
- ctx.random: a seeded random.Random. ctx.log(message): note for the run record.
- Only `math` may be imported. No files, network, processes, underscores or eval.
"""


#: the same acting helper call returning at once more often than this in a row ends the call
#: (far above any bounded loop's need; a spin costs 1,000 calls, not 20,000 loop ticks)
IDLE_REPEATS = 1_000


def _acting(method: Callable[..., Steps]) -> Callable[..., Steps]:
    """An acting helper (``go_to``, ``collect``, ...) whose calls from the coded action are
    watched: the same call (name and arguments) returning without an action more than
    :data:`IDLE_REPEATS` times in a row ends the coded action's call by its loop budget at
    once. Nothing changes between such calls (no action, so no new View): the next one
    would return at once too. Code that loops on a helper until it succeeds (``while not
    (yield from ctx.collect('stone')): pass`` where no stone can be reached) would otherwise
    spin its whole loop budget without acting, and its evaluation pays for every tick."""

    @functools.wraps(method)
    def watched(self: SkillContext, *args: Any, **kwargs: Any) -> Steps:
        if self._helper_depth:  # a helper's own helper: the outer call is the one watched
            return (yield from method(self, *args, **kwargs))
        views = self._views
        self._helper_depth += 1
        try:
            result = yield from method(self, *args, **kwargs)
        finally:
            self._helper_depth -= 1
        if self._views != views:  # it acted
            return result
        shown = [repr(a)[:40] for a in args] + [f"{k}={v!r}"[:40] for k, v in kwargs.items()]
        call = f"ctx.{method.__name__}({', '.join(shown)})"
        repeats = self._idle[1] + 1 if self._idle and self._idle[0] == call else 1
        self._idle = (call, repeats)
        if repeats > IDLE_REPEATS:
            end_budget(
                f"{call} returned at once {repeats} times in a row, with no action between: "
                "nothing can change until the code acts (a loop that waits on it spins)"
            )
        return result

    return watched


#: every View of an episode folded into {pos: block} and {block: {pos}} (see ctx.recall)
RememberedMap = dict[str, Any]


def new_map() -> RememberedMap:
    """An empty remembered map."""
    return {"blocks": {}, "where": {}, "last": None}


@dataclass
class EpisodeMemory:
    """What one coded action keeps across its calls in one episode: ``ctx.memory``, the
    code's own, and the remembered map, the skill API's, which the code cannot reach (the
    trusted helpers that read it must not walk what untrusted code put there)."""

    public: dict = field(default_factory=dict)
    seen: RememberedMap = field(default_factory=new_map)


class SkillContext:
    """The ``ctx`` object of one coded-action call. Only public attributes are reachable."""

    def __init__(
        self,
        view: View,
        memory: dict,
        rng: random.Random,
        seen: RememberedMap | None = None,
        policies: dict[str, PolicySkill] | None = None,
    ):
        self.memory = memory
        self._seen = seen if seen is not None else new_map()
        self._policies = policies or {}  # the policy skills this action may call, by name
        self.random = rng
        # what the call leaves for its record: private (the checker refuses the names), so
        # only log and begin_step add to them, within MAX_NOTES and MAX_STEPS_BEGUN
        self._notes: list[str] = []
        self._begun: list[str] = []  # the plan steps this call began (begin_step)
        self._cached_paths: tuple[View, Paths] | None = None
        self._cached_distances: tuple[View | None, dict[Position, int]] = (None, {})
        self._cached_blocks: tuple[View | None, list[tuple[str, Position]]] = (None, [])
        self._route: tuple[tuple, list[Position]] | None = None  # go_to's far-target path
        self._views = 0  # Views seen: one per action (an acting helper that acted saw one)
        self._helper_depth = 0  # acting helpers running (1: one the code called)
        self._idle: tuple[str, int] | None = None  # the call that returned at once, how often
        self.view = view

    @property
    def view(self) -> View:
        return self._view

    @view.setter
    def view(self, view: View) -> None:
        self._view = view
        self._views += 1
        self._idle = None  # an action came between: no streak of idle calls goes on
        seen = self._map()
        if seen["last"] is not view:
            self._record(seen, view)

    # -- the remembered map (every View of the episode, kept beside ctx.memory) ---------
    def _map(self) -> RememberedMap:
        """The remembered map: every View of the episode, out of the code's reach."""
        return self._seen

    @staticmethod
    def _record(seen: dict, view: View) -> None:
        """Fold one View into the remembered map: {pos: block} and {block: {pos}}."""
        seen["last"] = view
        blocks, where = seen["blocks"], seen["where"]
        left, top = view.position[0] - VIEW_COLS // 2, view.position[1] - VIEW_ROWS // 2
        for r, row in enumerate(view.grid):
            y = top + r
            for c, name in enumerate(row):
                pos = (left + c, y)
                old = blocks.get(pos)
                if old != name:
                    if old is not None:
                        where[old].discard(pos)
                    blocks[pos] = name
                    where.setdefault(name, set()).add(pos)

    def recall(self, *names: str) -> Position | None:
        """The closest block of those names seen in this episode (by this coded action)."""
        for name in names:
            _known(name, THINGS, "block or creature")
        seen = self._map()
        px, py = self.view.position
        best: tuple[int, Position] | None = None
        for name in names:
            for x, y in seen["where"].get(name, ()):
                d = abs(x - px) + abs(y - py)
                if d and (best is None or d < best[0]):
                    best = (d, (x, y))
        return None if best is None else best[1]

    def _known(self, pos: Position) -> str:
        """The block at ``pos``: from the View when visible, else remembered, else unknown."""
        block = self.view.block_at(*pos)
        if block == "unknown":
            return self._map()["blocks"].get(pos, "unknown")
        return block

    # -- reading the view ---------------------------------------------------------------
    @property
    def inventory(self) -> dict[str, int]:
        return self.view.inventory

    def has(self, item: str, count: int = 1) -> bool:
        _known(item, INVENTORY_ITEMS, "inventory item")
        return self.view.inventory.get(item, 0) >= count

    @property
    def notes(self) -> tuple[str, ...]:
        """The call's ``ctx.log`` notes (read-only)."""
        return tuple(self._notes)

    @property
    def begun(self) -> tuple[str, ...]:
        """The plan steps this call began (read-only; see :meth:`begin_step`)."""
        return tuple(self._begun)

    def log(self, message: Any) -> None:
        if len(self._notes) < MAX_NOTES:
            self._notes.append(bounded_text(message, MAX_NOTE))

    def begin_step(self, name: Any) -> None:
        """Mark that the plan's step ``name`` begins in this call. A plan composed of
        several coded actions calls it before each step, so that the skill library counts,
        for every step, the calls that ran it."""
        name = bounded_text(name, MAX_STEP_NAME)
        if name not in self._begun and len(self._begun) < MAX_STEPS_BEGUN:
            self._begun.append(name)

    def skill(self, name: Any) -> Steps:
        """Run the library's trained policy ``name`` (a policy skill loaded with this coded
        action) until its goal is met (True), its step budget ends or a stop condition it
        was saved with holds (False). A library skill whose best version is code never
        gets here: its code is linked into the caller's source."""
        name = bounded_text(name, MAX_STEP_NAME)
        policy = self._policies.get(name)
        if policy is None:
            known = ", ".join(sorted(self._policies)) or "none"
            raise ValueError(
                f"ctx.skill({name!r}): no library skill of that name is "
                f"loaded with this code (policy skills: {known})"
            )
        self.begin_step(POLICY_MARK + policy.name)  # the library counts its calls
        return (yield from run_policy(self, policy))

    def _blocked(self) -> set[Position]:
        return {(x, y) for name, x, y in self.view.mobs}

    def _paths(self) -> Paths:
        """BFS from the player over visible walkable, mob-free tiles (once per View)."""
        view = self.view
        cached = self._cached_paths
        if cached is None or cached[0] is not view:
            cached = self._cached_paths = (view, shortest_paths(view))
            self._cached_distances = (None, {})
        return cached[1]

    def _distances(self) -> dict[Position, int]:
        """BFS path lengths from the player over visible walkable, mob-free tiles."""
        paths = self._paths()
        if self._cached_distances[0] is not self.view:
            self._cached_distances = (self.view, paths.as_dict())
        return self._cached_distances[1]

    def _visible_blocks(self) -> list[tuple[str, Position]]:
        view = self.view
        if self._cached_blocks[0] is not view:
            self._cached_blocks = (view, visible_blocks(view))
        return self._cached_blocks[1]

    def _visible(self) -> list[tuple[str, Position]]:
        return self._visible_blocks() + [(name, (x, y)) for name, x, y in self.view.mobs]

    def nearest(self, *names: str) -> Position | None:
        for name in names:
            _known(name, THINGS, "block or creature")
        return nearest_tile(self.view, set(names), self._paths())

    def is_near(self, name: str, distance: int = 1) -> bool:
        _known(name, THINGS, "block or creature")
        px, py = self.view.position
        return any(
            block == name and max(abs(x - px), abs(y - py)) <= distance
            for block, (x, y) in self._visible()
        )

    def _threat(self) -> Position | None:
        px, py = self.view.position
        for name, x, y in self.view.mobs:
            if name in HOSTILE and abs(x - px) + abs(y - py) == 1:
                return (x, y)
        return None

    def enclosed(self) -> bool:
        """No zombie or skeleton can reach the player: the walkable tiles connected to it stay
        inside the View (mobs spawn farther away) and hold no hostile mob."""
        view = self.view
        start = view.position
        left, top = start[0] - VIEW_COLS // 2, start[1] - VIEW_ROWS // 2
        region, queue = {start}, deque([start])
        while queue:
            x, y = queue.popleft()
            for dx, dy in MOVES:
                nxt = (x + dx, y + dy)
                if nxt in region or view.block_at(*nxt) not in WALKABLE:
                    continue
                col, row = nxt[0] - left, nxt[1] - top
                if col in (0, VIEW_COLS - 1) or row in (0, VIEW_ROWS - 1):
                    return False  # open to the rest of the world
                region.add(nxt)
                queue.append(nxt)
        return not any(name in HOSTILE and (x, y) in region for name, x, y in view.mobs)

    # -- acting -------------------------------------------------------------------------
    def _step_toward(self, target: Position) -> Action | None:
        """First move of a shortest visible path to a tile next to ``target``."""
        px, py = self.view.position
        dist = self._distances()
        goals = {(target[0] + dx, target[1] + dy) for dx, dy in MOVES}
        reachable = [g for g in goals if g in dist]
        if not reachable:  # outside the view or walled off: head for the closest seen tile
            reachable = sorted(dist, key=lambda p: abs(p[0] - target[0]) + abs(p[1] - target[1]))[
                :1
            ]
        if not reachable or reachable[0] == (px, py):
            dx, dy = target[0] - px, target[1] - py
            options = []
            if dx:
                options.append((1 if dx > 0 else -1, 0))
            if dy:
                options.append((0, 1 if dy > 0 else -1))
            options.sort(key=lambda d: -abs(dx if d[0] else dy))
            safe = [d for d in options if self._safe((px + d[0], py + d[1]))]
            return MOVES[safe[0]] if safe else None
        goal = min(reachable, key=lambda g: dist[g])
        # walk back from the goal to the first step
        node = goal
        while dist[node] > 1:
            node = next(
                (node[0] + dx, node[1] + dy)
                for dx, dy in MOVES
                if dist.get((node[0] + dx, node[1] + dy)) == dist[node] - 1
            )
        return MOVES[(node[0] - px, node[1] - py)]

    def _can_mine(self, block: str) -> bool:
        need = {"stone": "wood_pickaxe", "coal": "wood_pickaxe", "iron": "stone_pickaxe"}
        tool = need.get(block, "iron_pickaxe" if block == "diamond" else None)
        return tool is not None and self.has(tool)

    def _route_to(self, target: Position, dig: bool) -> list[Position]:
        """Shortest path (first step first) to a tile next to ``target`` over the View and the
        remembered map; unknown tiles count as open, mineable ones too when ``dig``."""
        start = self.view.position
        goals = {(target[0] + dx, target[1] + dy) for dx, dy in MOVES}
        lo_x, hi_x = min(start[0], target[0]) - 12, max(start[0], target[0]) + 12
        lo_y, hi_y = min(start[1], target[1]) - 12, max(start[1], target[1]) + 12
        mobs = self._blocked()
        parent: dict[Position, Position] = {start: start}
        queue = deque([start])
        while queue:
            node = queue.popleft()
            if node in goals:
                path = []
                while node != start:
                    path.append(node)
                    node = parent[node]
                return path[::-1]
            for dx, dy in MOVES:
                nxt = (node[0] + dx, node[1] + dy)
                if nxt in parent or not (lo_x <= nxt[0] <= hi_x and lo_y <= nxt[1] <= hi_y):
                    continue
                block = self._known(nxt)
                if (
                    block in WALKABLE
                    or block == "unknown"
                    or (dig and block in MINEABLE and self._can_mine(block))
                ) and nxt not in mobs:
                    parent[nxt] = node
                    queue.append(nxt)
        return []

    def _enter(self, offset: Position) -> Steps:
        """Step once in ``offset``, mining the block there first when possible and safe."""
        px, py = self.view.position
        nxt = (px + offset[0], py + offset[1])
        block = self.view.block_at(*nxt)
        if block == "lava":
            return False
        for _ in range(4):
            if block not in MINEABLE or not self._can_mine(block):
                break
            if self.view.facing != offset:
                yield MOVES[offset]  # turns toward the solid block
            else:
                yield Action.DO
            block = self.view.block_at(*nxt)
        if self.view.mob_at(*nxt) is not None:  # a cow or a zombie in the way: hit it
            yield from self.face(nxt)
            if self.view.facing_position == nxt and self.view.mob_at(*nxt) is not None:
                yield Action.DO
            return False
        before = self.view.position
        yield MOVES[offset]
        return self.view.position != before

    @_acting
    def go_to(self, target: Position, max_steps: int = 30, dig: bool = False) -> Steps:
        if target is None:  # e.g. a walk to ctx.nearest("table") before any table is placed
            raise ValueError(
                "go_to got None: nothing of that name is in sight; check for None and "
                "`yield from ctx.explore()` to find it, or make/place it first"
            )
        stuck = 0
        target = cast(Position, tuple(target))  # code may pass a list: the route key hashes it
        for _ in range(max_steps):
            px, py = self.view.position
            if abs(target[0] - px) + abs(target[1] - py) <= 1:
                return True
            if self._threat() is not None:
                yield from self.defend()
                continue
            far = self.view.block_at(*target) == "unknown"
            if dig or far:
                key = (target, dig)
                if self._route is None or self._route[0] != key or not self._route[1]:
                    self._route = (key, self._route_to(target, dig))
                path = self._route[1]
                if not path or abs(path[0][0] - px) + abs(path[0][1] - py) != 1:
                    self._route = (key, self._route_to(target, dig))
                    path = self._route[1]
                if not path:
                    return False
                offset = (path[0][0] - px, path[0][1] - py)
                moved = yield from self._enter(offset)
                if moved:
                    path.pop(0)
                    stuck = 0
                else:
                    self._route = None
                    stuck += 1
                    if stuck >= 3:
                        return False
                continue
            action = self._step_toward(target)
            if action is None:
                return False
            before = self.view.position
            yield action
            stuck = stuck + 1 if self.view.position == before else 0
            if stuck >= 3:
                return False
        px, py = self.view.position
        return abs(target[0] - px) + abs(target[1] - py) <= 1

    @_acting
    def face(self, target: Position) -> Steps:
        px, py = self.view.position
        offset = (target[0] - px, target[1] - py)
        if offset not in MOVES:
            return False
        if self.view.facing != offset:
            yield MOVES[offset]
        return self.view.facing == offset

    @_acting
    def defend(self) -> Steps:
        """Fight a zombie or skeleton next to the player (or waiting one step for one a step
        away, rather than walking off with it in tow) until none is that close; 16 steps at
        most. True when there was one."""
        fought = False
        for _ in range(16):
            if self.view.sleeping:
                break
            threat = self._threat()
            if threat is None:
                px, py = self.view.position
                close = [
                    (x, y)
                    for name, x, y in self.view.mobs
                    if name == "zombie" and abs(x - px) + abs(y - py) == 2
                ]
                if not close or not fought:
                    break
                yield Action.NOOP
                continue
            fought = True
            yield from self.face(threat)
            if self.view.facing_position == threat:
                yield Action.DO
        return fought

    def _safe(self, pos: Position) -> bool:
        """Stepping toward ``pos`` cannot kill: it is not lava (unknown counts as safe)."""
        return self.view.block_at(*pos) != "lava"

    @_acting
    def explore(self, steps: int = 8, dig: bool = False) -> Steps:
        direction = self.memory.get("explore_direction")
        for _ in range(steps):
            if self._threat() is not None:
                yield from self.defend()
            px, py = self.view.position
            safe = [d for d in MOVES if self._safe((px + d[0], py + d[1]))]
            if not safe:
                return False
            if direction is None or tuple(direction) not in safe:
                direction = self.random.choice(safe)
            before = self.view.position
            if dig:
                yield from self._enter(tuple(direction))
            else:
                yield MOVES[tuple(direction)]
            if self.view.position == before:  # blocked: pick a new heading
                others = [d for d in safe if d != tuple(direction)]
                direction = self.random.choice(others) if others else direction
            self.memory["explore_direction"] = direction
        return True

    def _holdings(self) -> tuple:
        v = self.view
        return dict(v.inventory), v.achievements, v.food, v.drink

    @_acting
    def collect(self, name: str, max_steps: int = 40) -> Steps:
        target = self.nearest(name)
        if target is None:
            return False
        used = 0
        reached = yield from self.go_to(target, max_steps=max_steps)
        if not reached:
            return False
        before = self._holdings()
        yield from self.face(target)
        while used < max_steps:
            if self._threat() is not None and self._threat() != target:
                yield from self.defend()
                before = self._holdings()
                yield from self.face(target)
            yield Action.DO
            used += 1
            if self._holdings() != before:
                return True
            if self.view.block_at(*target) != name and self.view.mob_at(*target) != name:
                return False
        return False

    def _shelter_plan(self) -> tuple[Position, Position] | None:
        """The cheapest two-tile cell (A, A+e) to wall in: A is the player's tile or next to
        it, the four tiles beside the cell are already solid, the two ends need stone."""
        view = self.view
        px, py = view.position
        stone = view.inventory.get("stone", 0)
        best = None
        for e in MOVES:
            side = (e[1], e[0])
            for a in ((px, py), (px + e[0], py + e[1])):
                b = (a[0] + e[0], a[1] + e[1])
                cost, gain, ok = 0, 0, True
                for cell in {a, b} - {(px, py)}:
                    block = view.block_at(*cell)
                    if view.mob_at(*cell) is not None or block == "lava":
                        ok = False
                    elif block in MINEABLE and self._can_mine(block):
                        cost, gain = cost + 2, gain + (block == "stone")
                    elif block not in WALKABLE:
                        ok = False
                for cell in (a, b):
                    for s in (side, (-side[0], -side[1])):
                        beside = (cell[0] + s[0], cell[1] + s[1])
                        if view.block_at(*beside) in WALKABLE | {"unknown"}:
                            ok = False
                ends = [(b[0] + e[0], b[1] + e[1]), (a[0] - e[0], a[1] - e[1])]
                needed = sum(view.block_at(*end) in WALKABLE for end in ends)
                if ok and needed <= stone + gain:
                    cost += needed + (a != (px, py))
                    if best is None or cost < best[0]:
                        best = (cost, a, e)
        return None if best is None else (best[1], best[2])

    @_acting
    def shelter(self) -> Steps:
        """Wall the player in (a dug or walled two-tile cell, placing stone at its open ends)
        so that no mob can reach it. True when ctx.enclosed()."""
        for _ in range(3):
            if self.enclosed():
                return True
            yield from self.defend()
            plan = self._shelter_plan()
            if plan is None:
                return False
            a, e = plan
            back = (-e[0], -e[1])
            if self.view.position != a and not (yield from self._enter(e)):
                continue
            if not (yield from self._enter(e)):  # into the cell's far tile b
                continue
            fx, fy = self.view.facing_position
            if self.view.block_at(fx, fy) in WALKABLE:
                yield Action.PLACE_STONE
            if not (yield from self._enter(back)):  # back to a, now facing the open end
                continue
            fx, fy = self.view.facing_position
            if self.view.block_at(fx, fy) in WALKABLE:
                yield Action.PLACE_STONE
        return self.enclosed()

    @_acting
    def place(self, item: str) -> Steps:
        allowed = PLACEABLE_ON.get(item)
        if allowed is None:
            if f"MAKE_{item.upper()}" in Action.__members__:  # a tool: made, not placed
                raise ValueError(f"{item} is made, not placed: use `yield from ctx.make({item!r})`")
            raise ValueError(f"cannot place {item!r}; use one of {sorted(PLACEABLE_ON)}")
        action = Action[f"PLACE_{item.upper()}"]
        for _ in range(8):
            fx, fy = self.view.facing_position
            if self.view.block_at(fx, fy) in allowed and self.view.mob_at(fx, fy) is None:
                before = self.view.inventory
                yield action
                return self.view.inventory != before
            free = [
                d
                for d in MOVES
                if self.view.block_at(self.view.position[0] + d[0], self.view.position[1] + d[1])
                in WALKABLE
            ]
            yield MOVES[self.random.choice(free)] if free else Action.NOOP
        return False

    @_acting
    def make(self, item: str) -> Steps:
        if f"MAKE_{str(item).upper()}" not in Action.__members__:
            if item in INVENTORY_ITEMS:  # ctx.make("stone"): a material is collected
                fix = f"{item} is collected, not made: use `yield from ctx.collect({item!r})`"
            elif item in PLACEABLE_ON:
                fix = f"{item} is placed, not made: use `yield from ctx.place({item!r})`"
            else:
                fix = f"cannot make {item!r}; use one of {', '.join(MAKEABLE)}"
            raise ValueError(fix)
        action = Action[f"MAKE_{item.upper()}"]
        for station in ("table", "furnace") if item.startswith("iron") else ("table",):
            yield from self._back_to(station)
        before = self.view.inventory.get(item, 0)
        yield action
        return self.view.inventory.get(item, 0) > before

    def _back_to(self, station: str, max_steps: int = 60) -> Steps:
        """Next to a ``station`` (table, furnace): the one in sight or seen in this episode.
        A plan's earlier steps walk off to find materials, so the table is often out of
        sight by the time a make step runs; the one seen earlier is walked back to."""
        if self.is_near(station, 1):
            return True
        target = self.nearest(station) or self.recall(station)
        if target is None:
            return False
        yield from self.go_to(target, max_steps=max_steps)
        return self.is_near(station, 1)


#: what ``ctx.make`` makes (at a table; iron tools also need a furnace)
MAKEABLE: tuple[str, ...] = tuple(
    name[len("MAKE_") :].lower() for name in Action.__members__ if name.startswith("MAKE_")
)

#: what a View's map shows: the names ``nearest``, ``recall`` and ``is_near`` look for
THINGS: tuple[str, ...] = tuple(
    n for n in BLOCK_NAMES + MOB_NAMES if n not in ("unknown", "out_of_bounds")
)


def _known(name: str, names: tuple[str, ...], kind: str) -> None:
    """Raise naming the right names when ``name`` is none of ``names`` (a model may look for
    a name from the prompt's made-up example, ``bush``, in a world that has none)."""
    if name not in names:
        close = difflib.get_close_matches(str(name), names, n=2, cutoff=0.6)
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        raise ValueError(
            f"unknown {kind} {name!r} in this world: {hint}use one of {', '.join(names)}"
        )


PROVIDED_NAMES: dict[str, Any] = {"Action": Action}
