"""Fast reads of a View's grid for the skill API: visible tiles and BFS path lengths.

Coded actions ask for paths on every step of every env that runs one, so these work on
the grid's cell indices (one precomputed neighbour table) instead of sets of positions.
"""

from __future__ import annotations

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


def path_lengths(view: View) -> dict[Position, int]:
    """BFS path lengths from the player over visible walkable tiles without a creature.

    Positions come in BFS order (nearest first; ties in the move order left, right, up,
    down), the player's own tile first with length 0.
    """
    left, top = view.position[0] - VIEW_COLS // 2, view.position[1] - VIEW_ROWS // 2
    walkable = [block in WALKABLE for row in view.grid for block in row]
    for _, x, y in view.mobs:
        c, r = x - left, y - top
        if 0 <= r < VIEW_ROWS and 0 <= c < VIEW_COLS:
            walkable[r * VIEW_COLS + c] = False
    dist = [-1] * len(walkable)
    dist[_CENTRE] = 0
    order = [_CENTRE]
    for cell in order:  # the list grows while it is read: a FIFO queue
        step = dist[cell] + 1
        for neighbour in _NEIGHBOURS[cell]:
            if dist[neighbour] < 0 and walkable[neighbour]:
                dist[neighbour] = step
                order.append(neighbour)
    return {(left + cell % VIEW_COLS, top + cell // VIEW_COLS): dist[cell] for cell in order}
