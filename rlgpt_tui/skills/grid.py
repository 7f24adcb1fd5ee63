"""Fast reads of a View's grid for the skill API: visible tiles, BFS path lengths and the
nearest tile of some names.

Coded actions ask for paths on every step of every env that runs one, so these work on
the grid's cell indices (one precomputed neighbour table) instead of sets of positions.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlgpt_tui.envs.base import VIEW_COLS, VIEW_ROWS, WALKABLE, View

Position = tuple[int, int]
_CENTRE = (VIEW_ROWS // 2) * VIEW_COLS + VIEW_COLS // 2
# the 4-neighbours of each cell, in the skill API's move order: left, right, up, down
_NEIGHBOURS: list[list[int]] = [
    [
        (r + dy) * VIEW_COLS + (c + dx)
        for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1))
        if 0 <= r + dy < VIEW_ROWS and 0 <= c + dx < VIEW_COLS
    ]
    for r in range(VIEW_ROWS)
    for c in range(VIEW_COLS)
]


def visible_blocks(view: View) -> list[tuple[str, Position]]:
    """Every tile of the grid as (block name, world position), row by row."""
    left, top = view.position[0] - VIEW_COLS // 2, view.position[1] - VIEW_ROWS // 2
    return [
        (block, (left + c, top + r))
        for r, row in enumerate(view.grid)
        for c, block in enumerate(row)
    ]


@dataclass(frozen=True)
class Paths:
    """BFS from the player over visible walkable tiles without a creature.

    ``length[cell]``: path length to each grid cell (-1: unreachable); ``order``: the
    reached cells nearest first (ties in the move order left, right, up, down), the
    player's own cell first with length 0.
    """

    left: int
    top: int
    length: list[int]
    order: list[int]

    def as_dict(self) -> dict[Position, int]:
        """Path lengths by world position, in BFS order."""
        return {
            (self.left + cell % VIEW_COLS, self.top + cell // VIEW_COLS): self.length[cell]
            for cell in self.order
        }


def shortest_paths(view: View) -> Paths:
    """Path lengths from the player to every visible tile it can walk to."""
    left, top = view.position[0] - VIEW_COLS // 2, view.position[1] - VIEW_ROWS // 2
    walkable = [block in WALKABLE for row in view.grid for block in row]
    for _, x, y in view.mobs:
        c, r = x - left, y - top
        if 0 <= r < VIEW_ROWS and 0 <= c < VIEW_COLS:
            walkable[r * VIEW_COLS + c] = False
    length = [-1] * len(walkable)
    length[_CENTRE] = 0
    order = [_CENTRE]
    for cell in order:  # the list grows while it is read: a FIFO queue
        step = length[cell] + 1
        for neighbour in _NEIGHBOURS[cell]:
            if length[neighbour] < 0 and walkable[neighbour]:
                length[neighbour] = step
                order.append(neighbour)
    return Paths(left, top, length, order)


def nearest_tile(view: View, names: set[str], paths: Paths) -> Position | None:
    """The visible block or creature of ``names`` that is cheapest to stand next to.

    Cost: the path length to its nearest reachable neighbour tile, plus one; unreachable
    ones cost 100 plus their Manhattan distance. Blocks come before creatures, row by
    row; the first of equal cost wins. The player's own tile is skipped.
    """
    length, left, top = paths.length, paths.left, paths.top
    best: tuple[int, int] | None = None  # (cost, cell or -1 - mob index)
    cells = [
        cell
        for cell, block in enumerate(b for row in view.grid for b in row)
        if block in names and cell != _CENTRE
    ]
    mobs = [(k, (x, y)) for k, (name, x, y) in enumerate(view.mobs) if name in names]
    for cell in cells:
        cost = _cost(cell, length)
        if best is None or cost < best[0]:
            best = (cost, cell)
    for k, (x, y) in mobs:
        if (x, y) == view.position:
            continue
        cost = _cost_at(x - left, y - top, length)
        if best is None or cost < best[0]:
            best = (cost, -1 - k)
    if best is None:
        return None
    if best[1] < 0:
        _, x, y = view.mobs[-1 - best[1]]
        return (x, y)
    return (left + best[1] % VIEW_COLS, top + best[1] // VIEW_COLS)


def _cost(cell: int, length: list[int]) -> int:
    """Cost of standing next to a grid cell: see :func:`nearest_tile`."""
    steps = [length[n] for n in _NEIGHBOURS[cell] if length[n] >= 0]
    if steps:
        return min(steps) + 1
    r, c = divmod(cell, VIEW_COLS)
    return 100 + abs(c - VIEW_COLS // 2) + abs(r - VIEW_ROWS // 2)


def _cost_at(c: int, r: int, length: list[int]) -> int:
    """:func:`_cost` for grid coordinates, which may lie just outside the grid."""
    if 0 <= r < VIEW_ROWS and 0 <= c < VIEW_COLS:
        return _cost(r * VIEW_COLS + c, length)
    steps = [
        length[(r + dy) * VIEW_COLS + c + dx]
        for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1))
        if 0 <= r + dy < VIEW_ROWS
        and 0 <= c + dx < VIEW_COLS
        and length[(r + dy) * VIEW_COLS + c + dx] >= 0
    ]
    if steps:
        return min(steps) + 1
    return 100 + abs(c - VIEW_COLS // 2) + abs(r - VIEW_ROWS // 2)
