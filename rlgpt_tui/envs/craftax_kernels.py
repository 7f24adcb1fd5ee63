"""Craftax-Classic's jitted kernels (generate worlds, step, reset) and the JAX set-up they
need: the persistent compilation cache, traced programs stored on disk, XLA's CPU pool
sized to leave Python a core, and Craftax's state packed as three arrays.

:mod:`rlgpt_tui.envs.craftax_world` imports this module when its first world is built (JAX
loads here); Craftax itself is imported once JAX's backends are started
(:func:`start_jax`), since importing it computes with JAX.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from importlib.metadata import version
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import export
from jax._src import xla_bridge

from rlgpt_tui.envs.base import WorldSetupError

GENERATE_CHUNK = 8  # worlds generated together (see _generation_kernels)
XLA_THREADS_ENV = "RLGPT_XLA_THREADS"


def xla_cpu_threads() -> int | None:
    """Threads for XLA's CPU pool: ``$RLGPT_XLA_THREADS``, else one core fewer than this
    process may use (at least one); None: XLA's own default (every core).

    The Python thread that lands steps, runs coded actions and asks the policy keeps a core
    of its own. On 2 cores, PPO with coded actions ran 5% faster with XLA on one thread
    (5 alternating pairs of runs) although a lone Craftax step is 10-30% slower on one.
    """
    value = os.environ.get(XLA_THREADS_ENV, "").strip()
    if value:
        if not value.isdigit():
            raise WorldSetupError(
                f"{XLA_THREADS_ENV}={value!r}: set a whole number of threads (0: XLA's default)"
            )
        return int(value) or None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cores or 1) - 1)


def start_jax() -> None:
    """Start JAX's backends, XLA's CPU pool sized by :func:`xla_cpu_threads`.

    XLA sizes that pool once, when its CPU client starts, from ``$NPROC`` (else the core
    count), so this only acts if no JAX computation ran before in this process. A
    ``$NPROC`` set by the user is left alone.
    """
    threads = xla_cpu_threads()
    if getattr(xla_bridge, "_backends", None) or threads is None or "NPROC" in os.environ:
        jax.devices()
        return
    os.environ["NPROC"] = str(threads)
    try:
        jax.devices()
    finally:
        del os.environ["NPROC"]  # child processes keep their own defaults


def enable_compilation_cache() -> Path:
    """Turn on JAX's persistent compilation cache (compile once per machine, not per run)."""
    cache = Path(
        os.environ.get("RLGPT_JAX_CACHE", Path.home() / ".cache" / "rlgpt-tui" / "jax")
    ).expanduser()
    cache.mkdir(parents=True, exist_ok=True)
    jax.config.update("jax_compilation_cache_dir", str(cache))
    # every kernel, however small: a warm start then compiles nothing (~0.4 s of small ones)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    return cache


class _StoredKernel:
    """A jitted kernel whose traced program (``jax.export``) is kept on disk, one file per
    argument shapes, next to the compilation cache: a later process loads it instead of
    tracing Craftax again (~1 s a kernel here; XLA's compilation is the persistent cache's).

    Every process calls the exported program (the first one exports it, then calls it),
    so every run computes with the same compiled code. Where exporting fails (e.g. no
    ``flatbuffers`` to serialize with), the kernel is the plain jitted function."""

    def __init__(self, name: str, fn, folder: Path, version: str, donate: tuple = ()):
        self.name, self.fn, self.folder, self.version = name, fn, folder, version
        self.donate = donate
        self._calls: dict[tuple, object] = {}
        self._lock = threading.Lock()

    def __call__(self, *args):
        leaves, tree = jax.tree.flatten(args)
        signature = (tree, *((a.shape, a.dtype) for a in leaves))
        call = self._calls.get(signature)
        if call is None:
            with self._lock:
                call = self._calls.get(signature) or self._load(args, signature)
                self._calls[signature] = call
        return call(*args)

    def _load(self, args: tuple, signature: tuple):
        """The stored program for these shapes (exported and stored the first time)."""
        key = hashlib.sha256(repr((self.version, self.name, signature)).encode()).hexdigest()
        path = self.folder / f"{self.name}-{key[:32]}.jax"
        try:
            if path.exists():
                exported = export.deserialize(bytearray(path.read_bytes()))
            else:
                specs = jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), args)
                exported = export.export(self.fn)(*specs)
                scratch = path.with_suffix(f".{os.getpid()}.tmp")
                scratch.write_bytes(exported.serialize())
                scratch.replace(path)  # whole or absent, for a process reading it now
        except Exception:  # noqa: BLE001 - e.g. no flatbuffers: trace it as always
            return self.fn
        return jax.jit(exported.call, donate_argnums=self.donate)


def _kernels_version() -> str:
    """What the stored kernels depend on: JAX, Craftax, this module's code, the backend."""
    source = Path(__file__).read_bytes()
    return repr(
        (jax.__version__, version("jaxlib"), version("craftax"), jax.default_backend(), source)
    )


class _StatePacking:
    """Craftax's state, a pytree of 49 arrays per batch, packed as three: the block map,
    the mob map and one int32 row per env holding everything else (bools as 0/1, floats
    bit for bit).

    A jitted call pays for every array it takes and returns, on the caller's thread (~10 us
    each here): the step's dispatch took ~750 us with the state unpacked, ~300 us packed.
    """

    def __init__(self, template) -> None:
        leaves, self._treedef = jax.tree.flatten(template)  # one unbatched state
        self._specs = [(tuple(leaf.shape), leaf.dtype) for leaf in leaves]
        self._maps = [
            i for i, (shape, _) in enumerate(self._specs) if len(shape) == 2 and min(shape) > 8
        ]
        self._rest = [i for i in range(len(leaves)) if i not in self._maps]

    def pack(self, states) -> tuple:
        """Batched states -> (block map, mob map, int32 rows)."""
        leaves = jax.tree.leaves(states)
        n = leaves[0].shape[0]

        def as_int32(a):
            if a.dtype == jnp.bool_:
                return a.astype(jnp.int32)
            return a if a.dtype == jnp.int32 else jax.lax.bitcast_convert_type(a, jnp.int32)

        rows = jnp.concatenate([as_int32(leaves[i]).reshape(n, -1) for i in self._rest], 1)
        return (*(leaves[i] for i in self._maps), rows)

    def unpack(self, packed: Sequence[Any]):
        """The inverse of :meth:`pack`."""
        *maps, rows = packed
        n = rows.shape[0]
        leaves: list = [None] * len(self._specs)
        for i, a in zip(self._maps, maps, strict=True):
            leaves[i] = a
        start = 0
        for i in self._rest:
            shape, dtype = self._specs[i]
            width = int(np.prod(shape, dtype=int))
            a = rows[:, start : start + width].reshape((n, *shape))
            start += width
            if dtype == jnp.bool_:
                leaves[i] = a != 0
            elif dtype != jnp.int32:
                leaves[i] = jax.lax.bitcast_convert_type(a, dtype)
            else:
                leaves[i] = a
        return jax.tree.unflatten(self._treedef, leaves)


@dataclass(frozen=True)
class _Game:
    """Craftax-Classic's functions of one env, with its default parameters."""

    new_world: Callable[[Any], Any]  # key -> state
    step: Callable[[Any, Any, Any], tuple[Any, Any]]  # key, state, action -> state, reward
    game_over: Callable[[Any], Any]  # state -> bool
    observe: Callable[[Any], tuple[Any, Any]]  # state -> observation, meta row


def _craftax_game() -> _Game:
    """Craftax-Classic's functions; importing Craftax computes with JAX, so this comes
    after :func:`start_jax`."""
    from craftax.craftax_classic.envs.craftax_state import EnvParams, StaticEnvParams
    from craftax.craftax_classic.game_logic import craftax_step, is_game_over
    from craftax.craftax_classic.renderer import render_craftax_symbolic
    from craftax.craftax_classic.world_gen import generate_world

    params = EnvParams()
    static = StaticEnvParams()

    def observe(state):
        return render_craftax_symbolic(state).astype(jnp.float32), _meta(state)

    return _Game(
        new_world=lambda k: generate_world(k, params, static),
        step=lambda k, s, a: craftax_step(k, s, a, params, static),
        game_over=lambda s: is_game_over(s, params),
        observe=observe,
    )


def _meta(state):
    """One env's meta row (int32): x, y, 22 achievements, timestep, 12 inventory, health,
    food, drink, energy, direction, sleeping."""
    inv = state.inventory
    return jnp.concatenate(
        [
            state.player_position[::-1],  # (row, col) -> (x, y)
            state.achievements.astype(jnp.int32),
            jnp.array([state.timestep]),
            jnp.array(
                [
                    inv.wood,
                    inv.stone,
                    inv.coal,
                    inv.iron,
                    inv.diamond,
                    inv.sapling,
                    inv.wood_pickaxe,
                    inv.stone_pickaxe,
                    inv.iron_pickaxe,
                    inv.wood_sword,
                    inv.stone_sword,
                    inv.iron_sword,
                ]
            ),
            jnp.array(
                [
                    state.player_health,
                    state.player_food,
                    state.player_drink,
                    state.player_energy,
                    state.player_direction,
                    state.is_sleeping,
                ]
            ).astype(jnp.int32),
        ]
    ).astype(jnp.int32)


def _select(mask, new, old):
    """``new`` where ``mask`` (one bool per env), else ``old``, leaf by leaf."""

    def pick(n, o):
        return jnp.where(mask.reshape((-1,) + (1,) * (n.ndim - 1)), n, o)

    return jax.tree.map(pick, new, old)


def _generation_kernels(game: _Game, packing: _StatePacking) -> tuple[Any, Any]:
    """(generate, generate_chunk_from): new worlds, packed, with their observations and
    meta rows."""
    v_observe = jax.vmap(game.observe)

    def generate_chunk(keys):
        states = jax.vmap(game.new_world)(keys)
        return (packing.pack(states), *v_observe(states))

    @jax.jit
    def generate(keys):
        """Worlds for ``keys`` (a multiple of GENERATE_CHUNK), a chunk at a time: one
        vmapped batch of 64 took 2.7x longer per world here (its arrays leave the cache)."""
        chunks = keys.reshape(-1, GENERATE_CHUNK, *keys.shape[1:])
        out = jax.lax.map(generate_chunk, chunks)
        return jax.tree.map(lambda a: a.reshape(-1, *a.shape[2:]), out)

    @jax.jit
    def generate_chunk_from(key):
        """One chunk of worlds and the next key (the splits inside: one call)."""
        key, sub = jax.random.split(key)
        return key, generate(jax.random.split(sub, GENERATE_CHUNK))

    return generate, generate_chunk_from


def _step_kernels(game: _Game, packing: _StatePacking) -> tuple[Any, Any, Any]:
    """(step, step_subset, replace): a masked step of a group's packed states, of a small
    sub-batch of them, and the pending resets alone."""
    v_observe = jax.vmap(game.observe)

    def replace(states, pool, take):
        """Copy pool[take[i]] into env i where take[i] >= 0 (pending resets)."""
        chosen = jax.tree.map(lambda p: p[jnp.clip(take, 0)], pool)
        return _select(take >= 0, chosen, states)

    def apply_resets(states, pool, take):
        """Pending resets first, inside the step's call (a no-op branch when none)."""
        return jax.lax.cond(jnp.any(take >= 0), replace, lambda s, p, t: s, states, pool, take)

    def step_states(key, packed, actions, active):
        """One masked step of packed states; the packed states and one result row each."""
        states = packing.unpack(packed)
        keys = jax.random.split(key, actions.shape[0])
        new_states, reward = jax.vmap(game.step)(keys, states, actions)
        states = _select(active, new_states, states)
        done = jax.vmap(game.game_over)(states) & active
        obs, info = v_observe(states)
        reward = jnp.where(active, reward, 0.0)
        out = [info.astype(jnp.float32), reward[:, None], done[:, None].astype(jnp.float32)]
        return packing.pack(states), jnp.concatenate([*out, obs], axis=1)

    @partial(jax.jit, donate_argnums=(1,))
    def step(key, states, pool, controls):
        """``controls``: one row per env (pending reset, action, active)."""
        states = apply_resets(states, pool, controls[:, 0])
        key, sub = jax.random.split(key)
        states, out = step_states(sub, states, controls[:, 1], controls[:, 2] > 0)
        return key, states, out

    @partial(jax.jit, donate_argnums=(1,))
    def step_subset(key, states, pool, take, controls):
        """Step only the envs of a small fixed-size batch (``controls``: env index,
        action, active per row), scatter them back."""
        states = apply_resets(states, pool, take)
        key, sub = jax.random.split(key)
        index = controls[:, 0]
        part = jax.tree.map(lambda s: s[index], states)
        part, out = step_states(sub, part, controls[:, 1], controls[:, 2] > 0)
        states = jax.tree.map(lambda s, p: s.at[index].set(p), states, part)
        return key, states, out

    return step, step_subset, replace


class Kernels:
    """The jitted functions, built once per process and shared by all CraftaxWorld instances."""

    chunk = GENERATE_CHUNK  # worlds generate() makes at a time: a pool is whole chunks
    _instance: Kernels | None = None
    _lock = threading.Lock()  # worlds may be built (or prepared) on two threads

    @classmethod
    def get(cls) -> Kernels:
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def warming(self, shapes: tuple) -> threading.Lock:
        """The lock held while a world warms up kernels of ``shapes`` (another thread's
        world of the same shapes waits, then finds them warm)."""
        with self._lock:
            return self._warming.setdefault(shapes, threading.Lock())

    def __init__(self) -> None:
        cache = enable_compilation_cache()
        start_jax()
        game = _craftax_game()
        packing = _StatePacking(jax.eval_shape(game.new_world, jax.random.PRNGKey(0)))
        generate, generate_chunk_from = _generation_kernels(game, packing)
        step, step_subset, replace = _step_kernels(game, packing)
        folder = cache / "kernels"
        folder.mkdir(exist_ok=True)
        version = _kernels_version()

        def stored(name: str, fn, donate: tuple = ()) -> _StoredKernel:
            return _StoredKernel(name, fn, folder, version, donate)

        self.generate = stored("generate", generate)
        self.generate_chunk_from = stored("generate_chunk_from", generate_chunk_from)
        join = jax.jit(lambda parts: jax.tree.map(lambda *a: jnp.concatenate(a), *parts))
        self.join = stored("join", join)
        self.step = stored("step", step, donate=(1,))
        self.step_subset = stored("step_subset", step_subset, donate=(1,))
        self.replace = stored("replace", jax.jit(replace, donate_argnums=(0,)), donate=(0,))
        self.folder, self.version = folder, version  # the stored kernels, and what they fit
        self.packing = packing
        self.unpack_one = jax.jit(lambda packed, i: packing.unpack([a[i][None] for a in packed]))
        self._render: tuple[int, Any] | None = None  # (block pixels, its jitted renderer)
        self.jax = jax
        self.warmed: set[tuple] = set()  # shapes CraftaxWorld._warm_up has called with
        self._warming: dict[tuple, threading.Lock] = {}

    def render(self, state, block_pixels: int):
        """RGB pixels of one state; ``block_pixels`` must be a size Craftax caches (7, 16, 64)."""
        from craftax.craftax_classic.renderer import make_craftax_pixel_renderer

        if self._render is None or self._render[0] != block_pixels:
            self._render = (block_pixels, self.jax.jit(make_craftax_pixel_renderer(block_pixels)))
        return self._render[1](state)
