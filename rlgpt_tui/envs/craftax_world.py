"""Craftax-Classic (JAX) as a batched :class:`World`.

Craftax's shipped auto-reset generates a new world on every step and selects it when an
episode ends, which costs ~17x throughput. Here envs reset only when asked, by copying
worlds from a pool generated in one vmapped batch; the pool is refilled when used up.
Everything per step runs in one jitted call: masked step, observation and a small integer
"meta" array (position, achievements, inventory, ...) from which Views are built.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rlgpt_tui.envs.base import (
    ACHIEVEMENTS,
    BLOCK_NAMES,
    INVENTORY_ITEMS,
    MAP_FEATURES,
    MOB_NAMES,
    VIEW_COLS,
    VIEW_ROW_WIDTH,
    VIEW_ROWS,
    StepResult,
    View,
    World,
)
from rlgpt_tui.envs.knowledge import WorldDocs, craftax_classic_documentation

# The kernels (rlgpt_tui.envs.craftax_kernels: JAX and Craftax) are imported when the first
# world is built (start-up: this module's class, documentation and observation layout serve
# without loading JAX, about a second)

_FACING = {1: (-1, 0), 2: (1, 0), 3: (0, -1), 4: (0, 1)}  # craftax direction -> (dx, dy)
_NUM_BLOCKS = len(BLOCK_NAMES)
_FACING_TABLE = np.array([(0, 1), (-1, 0), (1, 0), (0, -1), (0, 1)], dtype=np.int32)
_ACH_SHIFTS = np.arange(len(ACHIEVEMENTS), dtype=np.int64)
_MOB_SHIFTS = np.arange(4, dtype=np.int64)
# meta columns (craftax_kernels._meta): x, y, 22 achievements, timestep, 12 inventory,
# health, food, drink, energy, direction, sleeping
_META_ACH = slice(2, 24)
_META_INV = slice(25, 37)
# a step's results, one float32 row per env: meta columns, reward, game over, observation
_META_WIDTH = 43
_OUT_REWARD, _OUT_DONE, _OUT_OBS = _META_WIDTH, _META_WIDTH + 1, _META_WIDTH + 2


_DEFERRED: list[threading.Thread] = []  # warm-ups left to background threads


def _start_deferred(work: Callable[[], None]) -> None:
    """Run ``work`` (a warm-up the first sample need not wait for) on a background thread;
    a failure there is left to the real call to meet and report."""

    def guarded() -> None:
        with contextlib.suppress(Exception):
            work()

    thread = threading.Thread(target=guarded, name="warm up Craftax sub-batch steps", daemon=True)
    thread.start()
    _DEFERRED.append(thread)


@atexit.register
def wait_for_warm_ups() -> None:
    """Join the background warm-ups: no thread is left inside XLA when the process exits."""
    while _DEFERRED:
        _DEFERRED.pop().join()


@dataclass
class _Flight:
    """A group's step, dispatched to XLA and not yet fetched."""

    group: int
    output: object  # a device array: one row per env (meta, reward, game over, observation)
    index: np.ndarray | None = None  # the sub-batch (group rows), when one was stepped


@dataclass
class _StepHandle:
    flights: list[_Flight]


class CraftaxWorld(World):
    """Craftax-Classic symbolic, ``num_envs`` games stepped together in jitted calls.

    The envs form ``groups`` (default one), each its own batch of states and its own
    call. A group's step runs on XLA's threads while Python works on another group's
    results (see :meth:`step_async`): JAX dispatches jitted calls asynchronously.
    """

    @classmethod
    def documentation(cls) -> WorldDocs:
        """Crafter's rules, actions and tech tree (Crafter and Craftax-Classic share them),
        with Craftax-Classic's recipes."""
        return craftax_classic_documentation()

    name = "craftax"

    def __init__(
        self,
        num_envs: int = 64,
        seed: int = 0,
        pool_size: int | None = None,
        episodes_per_world: int = 1,
        groups: int = 1,
    ):
        self.num_envs = num_envs
        # Resets copy worlds from the pool; each pool world starts up to this many episodes
        # before the pool is generated anew (generating a world costs about as much as
        # ten steps, and short-episode tasks reset every few steps).
        self.episodes_per_world = max(1, int(episodes_per_world))
        from rlgpt_tui.envs.craftax_kernels import Kernels  # JAX loads with the first world

        self._k = Kernels.get()
        jax = self._k.jax
        chunk = self._k.chunk
        self._pool_size = pool_size or -(-max(num_envs, 16) // chunk) * chunk
        self._key = jax.random.PRNGKey(seed)
        self._pool = None
        self._pool_obs: np.ndarray  # the pool's observations and meta rows, from reset on
        self._pool_meta: np.ndarray
        self._pool_next = 0
        self._pool_chunks = -(-self._pool_size // chunk)
        self._pool_key = jax.random.fold_in(self._key, 1)
        self._upcoming: list = []  # chunks of the next pool, generated ahead
        self._steps_since_chunk = 0
        self._pending = np.full(num_envs, -1, dtype=np.int32)
        count = max(1, min(int(groups), num_envs))
        bounds = np.linspace(0, num_envs, count + 1).round().astype(int).tolist()
        self._groups = [slice(a, b) for a, b in zip(bounds, bounds[1:], strict=False)]
        self._states: list = [None] * count  # one batch of states per group
        self._in_flight = [False] * count
        self._meta: np.ndarray  # every env's meta row and observation, from reset on
        self._obs: np.ndarray
        self._steps_taken = 0
        # Micro-steps where few envs of a group act (the others wait on coded actions) step
        # a small sub-batch of one of these sizes: Craftax's step costs ~0.6 ms for 1 env,
        # ~1.3 ms for 16 and ~3.7 ms for 64 (2 cores), so the tail of a long coded action
        # is cheap.
        size = min(g.stop - g.start for g in self._groups)
        self._buckets = [b for b in (4, size // 4) if size >= 16 and b >= 4]

    def env_groups(self) -> list[np.ndarray]:
        return [np.arange(g.start, g.stop) for g in self._groups]

    # -- world pool --------------------------------------------------------------------
    # A reset copies a pre-generated world's observation at once and leaves its state as a
    # pending replacement, applied in the group's next step call (however many envs reset).
    # The next pool is generated ahead, a chunk at a time while envs step (XLA runs calls
    # in order: one chunk queued at a time delays a step by a few ms, a whole pool by ~50).
    def _split(self, n: int):
        jax = self._k.jax
        self._key, sub = jax.random.split(self._key)
        return jax.random.split(sub, n)

    def _generate(self, count: int):
        """``count`` new worlds (states, observations, meta), generated in whole chunks."""
        chunk = self._k.chunk
        chunks = -(-count // chunk)
        states, obs, meta = self._k.generate(self._split(chunks * chunk))
        if count == chunks * chunk:
            return states, obs, meta
        return self._k.jax.tree.map(lambda a: a[:count], (states, obs, meta))

    def _generate_chunk(self) -> None:
        """Dispatch the next pool's next chunk of worlds (JAX returns before it is done)."""
        self._pool_key, chunk = self._k.generate_chunk_from(self._pool_key)
        self._upcoming.append(chunk)

    def _generate_ahead(self) -> None:
        """One more chunk of the next pool, once the chunk before it is done and every
        group has stepped since: a chunk (~6 ms) queued behind each step would delay the
        next group's step; one per round hides in the time Python spends on results."""
        self._steps_since_chunk += 1
        if (
            len(self._upcoming) < self._pool_chunks
            and self._steps_since_chunk >= len(self._groups)
            and (not self._upcoming or self._upcoming[-1][2].is_ready())
        ):
            self._generate_chunk()
            self._steps_since_chunk = 0

    def _refill_pool(self) -> None:
        self._flush_pending()
        while len(self._upcoming) < self._pool_chunks:
            self._generate_chunk()
        parts, self._upcoming = self._upcoming, []
        size = self._pool_size
        states = self._k.join([states for states, _, _ in parts])
        if size % self._k.chunk:
            states = self._k.jax.tree.map(lambda a: a[:size], states)
        self._install_pool(
            states,
            np.concatenate([np.asarray(obs) for _, obs, _ in parts])[:size],
            np.concatenate([np.asarray(meta) for _, _, meta in parts])[:size],
        )

    def _install_pool(self, states, obs, meta) -> None:
        """Make these worlds the reset pool, none of them handed out yet."""
        self._pool = states
        self._pool_obs, self._pool_meta = np.asarray(obs), np.asarray(meta)
        self._pool_next = 0

    def _flush_pending(self) -> None:
        """Apply pending resets now (before the pool changes, or before rendering)."""
        for g, rows in enumerate(self._groups):
            take = self._take_pending(rows)
            if take.max() >= 0:
                self._states[g] = self._k.replace(self._states[g], self._pool, take)

    def _take_pending(self, rows: slice) -> np.ndarray:
        """A group's pending resets, handed to its next step call (which applies them)."""
        take = self._pending[rows].copy()
        self._pending[rows] = -1
        return take

    def _result(self, reward: np.ndarray, done: np.ndarray) -> StepResult:
        meta = self._meta
        return StepResult(
            obs=self._obs,
            reward=reward,
            game_over=done,
            achievements=meta[:, _META_ACH].astype(bool),
            inventory=meta[:, _META_INV],
        )

    # -- World API -----------------------------------------------------------------------
    def reset(self, seed: int) -> StepResult:
        jax = self._k.jax
        self._key = jax.random.PRNGKey(seed)
        self._pool_key = jax.random.fold_in(self._key, 1)  # later pools, generated ahead
        self._upcoming = []
        self._pending = np.full(self.num_envs, -1, dtype=np.int32)
        states, obs, meta = self._generate(self.num_envs)
        self._states = [jax.tree.map(lambda a, g=g: a[g], states) for g in self._groups]
        self._in_flight = [False] * len(self._groups)
        self._obs, self._meta = np.array(obs), np.array(meta)
        self._install_pool(*self._generate(self._pool_size))
        self._warm_up()
        zeros = np.zeros(self.num_envs, dtype=np.float32)
        return self._result(zeros, np.zeros(self.num_envs, dtype=bool))

    def _warm_up(self) -> None:
        """Call every kernel this world uses once, on throwaway copies: the first call of
        each traces it (~0.5 s) and compiles or loads it, a stall that would otherwise fall
        into a run's first sub-batch step or pool refill. The games are not touched. Once
        per process for each set of shapes (the kernels are shared; a world of the same
        shapes warming up on another thread is waited for)."""
        shapes = self._shapes()
        if shapes in self._k.warmed:
            return
        with self._k.warming(shapes):
            if shapes not in self._k.warmed:
                later = self._warm_up_kernels()
                self._k.warmed.add(shapes)
                marker = self._stored_marker()

                def rest() -> None:
                    later()
                    if not marker.exists():  # later processes: "loading", not "compiling"
                        marker.touch()

                _start_deferred(rest)

    def _warm_up_kernels(self) -> Callable[[], None]:
        """Warm up, now, the kernels every run needs at once (the full step, resets, the
        pool's generation); return the warm-up of the sub-batch steps (used once coded
        actions keep some envs waiting), which runs on a background thread: the first
        sample need not wait for it (~1 s of loading here), and a sub-batch step called
        before it is done waits for its kernel as it would have anyway."""
        sizes = self._group_sizes()
        jax = self._k.jax
        key = jax.random.PRNGKey(0)
        later: list[tuple] = []
        for size, g in sizes.items():

            def copy(g: int = g):  # the kernels donate (consume) the states they are given
                return jax.tree.map(lambda a: a.copy(), self._states[g])

            idle = np.zeros((size, 3), dtype=np.int32)
            idle[:, 0] = -1  # no pending reset, every env inactive
            self._k.step(key, copy(), self._pool, idle)
            self._k.replace(copy(), self._pool, idle[:, 0])
            for bucket in self._buckets:
                sub_batch = np.zeros((bucket, 3), dtype=np.int32)  # env 0, noop, inactive
                later.append((key, copy(), self._pool, idle[:, 0], sub_batch))  # copies now
        _, chunk = self._k.generate_chunk_from(key)
        jax.block_until_ready(self._k.join([chunk[0]] * self._pool_chunks))

        def sub_batches() -> None:
            for arguments in later:
                jax.block_until_ready(self._k.step_subset(*arguments))

        return sub_batches

    @classmethod
    def load(cls) -> None:
        from rlgpt_tui.envs.craftax_kernels import Kernels

        Kernels.get()

    @classmethod
    def prepare(cls, num_envs: int, groups: int = 1) -> None:
        """Trace and compile (or load) the kernels of worlds of this size: a throwaway
        world's reset generates its worlds and warms every kernel up."""
        world = cls(num_envs, seed=0, groups=groups)
        if world._shapes() not in world._k.warmed:
            world.reset(0)
        world.close()

    def _group_sizes(self) -> dict[int, int]:
        """Each distinct group size, with the last group of that size."""
        return {rows.stop - rows.start: g for g, rows in enumerate(self._groups)}

    def _shapes(self) -> tuple:
        sizes = self._group_sizes()
        return (tuple(sizes), tuple(self._buckets), self._pool_size, self._pool_chunks)

    def _stored_marker(self) -> Path:
        """A file that says this world's kernels, for its shapes, are stored on disk (a
        process warmed them up with this JAX, Craftax and code)."""
        key = hashlib.sha256(repr((self._k.version, self._shapes())).encode()).hexdigest()
        return self._k.folder / f"warmed-{key[:32]}"

    def compiling(self) -> str:
        if self._shapes() in self._k.warmed:
            return ""
        sizes = "+".join(str(rows.stop - rows.start) for rows in self._groups)
        if self._stored_marker().exists():
            return f"loading Craftax's kernels for {sizes} envs from the disk (once per process)"
        return (
            f"compiling Craftax's kernels for {sizes} envs: the first run on this machine "
            "(with this JAX and Craftax) traces and compiles them, then keeps them on disk "
            "for later runs"
        )

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> StepResult:
        return self.step_wait(self.step_async(actions, active))

    def step_async(self, actions: np.ndarray, active: np.ndarray | None = None) -> _StepHandle:
        actions = np.asarray(actions, dtype=np.int32)
        active = np.ones(self.num_envs, dtype=bool) if active is None else np.asarray(active)
        active = active.astype(bool)
        touched = [g for g, rows in enumerate(self._groups) if active[rows].any()]
        if any(self._in_flight[g] for g in touched):
            raise RuntimeError("a group of envs got a step before its last one was fetched")
        flights = []
        for g in touched:
            rows = self._groups[g]
            self._steps_taken += int(active[rows].sum())
            flights.append(self._launch(g, actions[rows], active[rows]))
        self._generate_ahead()  # queued behind the step, it runs while the caller works
        return _StepHandle(flights)

    def _launch(self, g: int, actions: np.ndarray, active: np.ndarray) -> _Flight:
        """Dispatch one group's step (JAX returns before XLA has run it)."""
        rows = self._groups[g]
        take = self._take_pending(rows)
        stepping = int(active.sum())
        bucket = next((b for b in self._buckets if stepping <= b), None)
        self._in_flight[g] = True
        if bucket is None:
            controls = np.stack([take, actions, active], axis=1).astype(np.int32)
            self._key, self._states[g], out = self._k.step(
                self._key, self._states[g], self._pool, controls
            )
            return _Flight(g, out)
        # few envs act (the others wait on coded actions): step a small sub-batch only
        chosen = np.flatnonzero(active)
        padding = np.flatnonzero(~active)[: bucket - len(chosen)]
        index = np.concatenate([chosen, padding])
        controls = np.stack([index, actions[index], np.arange(bucket) < len(chosen)], axis=1)
        self._key, self._states[g], out = self._k.step_subset(
            self._key, self._states[g], self._pool, take, controls.astype(np.int32)
        )
        return _Flight(g, out, index)

    def step_wait(self, handle: object) -> StepResult:
        assert isinstance(handle, _StepHandle)  # what this world's step_async returned
        reward = np.zeros(self.num_envs, dtype=np.float32)
        done = np.zeros(self.num_envs, dtype=bool)
        # fresh arrays: StepResults handed out earlier must not change under their holders
        self._obs, self._meta = self._obs.copy(), self._meta.copy()
        for flight in handle.flights:
            out = np.asarray(flight.output)
            rows = self._groups[flight.group]
            index = np.arange(rows.start, rows.stop)
            if flight.index is not None:
                index = index[flight.index]
            self._obs[index] = out[:, _OUT_OBS:]
            self._meta[index] = out[:, :_META_WIDTH]
            reward[index], done[index] = out[:, _OUT_REWARD], out[:, _OUT_DONE] > 0
            self._in_flight[flight.group] = False
        return self._result(reward, done)

    def reset_envs(self, mask: np.ndarray) -> StepResult:
        mask = np.asarray(mask, dtype=bool)
        if mask.any():
            for g, rows in enumerate(self._groups):
                if self._in_flight[g] and mask[rows].any():
                    raise RuntimeError("fetch a group's step (step_wait) before resetting it")
            self._obs, self._meta = self._obs.copy(), self._meta.copy()
            for i in np.flatnonzero(mask):
                if self._pool_next >= self._pool_size * self.episodes_per_world:
                    self._refill_pool()
                j = self._pool_next % self._pool_size
                self._pool_next += 1
                self._pending[i] = j
                self._obs[i], self._meta[i] = self._pool_obs[j], self._pool_meta[j]
        zeros = np.zeros(self.num_envs, dtype=np.float32)
        return self._result(zeros, np.zeros(self.num_envs, dtype=bool))

    def views(self, indices: list[int] | None = None) -> list[View]:
        indices = list(range(self.num_envs)) if indices is None else list(indices)
        if not indices:
            return []
        # decode the one-hot map of all requested envs at once, then build Views
        cells = self._obs[indices, :MAP_FEATURES].reshape(
            len(indices), VIEW_ROWS, VIEW_COLS, _NUM_BLOCKS + len(MOB_NAMES)
        )
        names = _BLOCK_ARRAY[cells[..., :_NUM_BLOCKS].argmax(-1)].tolist()
        mob_hits = np.argwhere(cells[..., _NUM_BLOCKS:] > 0.5).tolist()
        metas = self._meta[indices].tolist()
        lights = self._obs[indices, MAP_FEATURES + 20].tolist()
        mobs: list[list[tuple[str, int, int]]] = [[] for _ in indices]
        for k, r, c, m in mob_hits:
            x, y = metas[k][0], metas[k][1]
            mobs[k].append((MOB_NAMES[m], x + c - VIEW_COLS // 2, y + r - VIEW_ROWS // 2))
        return [_make_view(names[k], mobs[k], metas[k], lights[k]) for k in range(len(indices))]

    def view_rows(self, indices: list[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The Views of ``indices`` encoded for workers, straight from the packed arrays."""
        indices = list(range(self.num_envs)) if indices is None else list(indices)
        obs, meta = self._obs[indices], self._meta[indices]
        rows = np.zeros((len(indices), VIEW_ROW_WIDTH), dtype=np.int32)
        rows[:, 0:2] = meta[:, 0:2]
        rows[:, 2:4] = _FACING_TABLE[np.clip(meta[:, 41], 0, 4)]
        rows[:, 4:8] = meta[:, 37:41]
        rows[:, 8] = meta[:, 42]
        rows[:, 9] = meta[:, 24]
        rows[:, 10:22] = meta[:, _META_INV]
        rows[:, 22] = (meta[:, _META_ACH].astype(np.int64) << _ACH_SHIFTS).sum(1)
        cells = obs[:, :MAP_FEATURES].reshape(len(indices), -1, _NUM_BLOCKS + len(MOB_NAMES))
        rows[:, 23:86] = cells[..., :_NUM_BLOCKS].argmax(-1)
        rows[:, 86:] = ((cells[..., _NUM_BLOCKS:] > 0.5) << _MOB_SHIFTS).sum(-1)
        return rows, obs[:, MAP_FEATURES + 20].astype(np.float64)

    def frame(self, index: int, size: int = 288) -> np.ndarray:
        jax = self._k.jax
        self._flush_pending()
        g = next(g for g, rows in enumerate(self._groups) if rows.start <= index < rows.stop)
        state = jax.tree.map(
            lambda a: a[0], self._k.unpack_one(self._states[g], index - self._groups[g].start)
        )
        image = np.asarray(self._k.render(state, 16)).clip(0, 255).astype(np.uint8)
        if size == image.shape[1]:
            return image
        from PIL import Image  # start-up: a run imports this module before its worlds load

        height = round(image.shape[0] * size / image.shape[1])
        return np.asarray(Image.fromarray(image).resize((size, height), Image.Resampling.NEAREST))


_BLOCK_ARRAY = np.array(BLOCK_NAMES, dtype=object)


def _make_view(names: list, mobs: list, meta: list, light: float) -> View:
    """A View from one env's decoded grid, visible mobs and meta row."""
    health, food, drink, energy, direction, sleeping = meta[37:43]
    return View(
        grid=tuple(map(tuple, names)),
        mobs=tuple(mobs),
        inventory=dict(zip(INVENTORY_ITEMS, meta[25:37], strict=True)),
        health=health,
        food=food,
        drink=drink,
        energy=energy,
        facing=_FACING.get(direction, (0, 1)),
        daylight=light,
        position=(meta[0], meta[1]),
        sleeping=bool(sleeping),
        achievements=frozenset(a for a, got in zip(ACHIEVEMENTS, meta[2:24], strict=True) if got),
        step=meta[24],
    )
