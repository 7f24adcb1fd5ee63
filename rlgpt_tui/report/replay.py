"""A session's best solution replayed: one episode of its policy checkpoint, or of its code,
in a fresh world, as frames for the report's GIF."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from rlgpt_tui.report.record import final_code
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
from rlgpt_tui.rl.episodes import code_alone, run_episodes
from rlgpt_tui.skills.validation import validate
from rlgpt_tui.store import SessionStore

GIF_MAX_FRAMES = 240


def evaluation_frames(store: SessionStore, session_id: int, size: int = 144) -> list:
    """Frames of one episode of the session's best solution (its policy, or its code), at
    most :data:`GIF_MAX_FRAMES` steps long."""
    # start-up: rl.checkpoints imports torch, which listing or showing sessions does not need
    from rlgpt_tui.rl.checkpoints import load_checkpoint
    from rlgpt_tui.rl.environment import build_env, task_for

    iterations = store.rows("iterations", session_id)
    if not iterations:
        return []
    best = max(iterations, key=lambda r: r["value"])["iteration"]
    runs = [r for r in store.rows("training_runs", session_id) if r["iteration"] == best]
    if runs and runs[-1]["checkpoint_dir"]:
        saved = load_checkpoint(Path(runs[-1]["checkpoint_dir"]))
        if saved is None:
            return []
        config = RLConfig.model_validate(json.loads(runs[-1]["config"]))
        model = saved[0]
        horizon = min(task_for(config).horizon, GIF_MAX_FRAMES)
        env = build_env(config.model_copy(update={"horizon": horizon}), 1, for_training=False)

        def policy(envs, obs):
            return model.predict(env.features(obs), deterministic=False)[0]

        frames = _episode_frames(env.runner, policy, config.seed + 31337, size)
        env.close()
    else:
        code = final_code(store, session_id)
        if not code:
            return []
        name, source = next(iter(code.items()))
        action = validate(name, source)
        settings = store.get(session_id).settings
        config = RLConfig(
            task=settings.get("task") or "collect_wood",
            env=settings.get("env", "craftax"),
            num_envs=1,
            seed=settings.get("seed", 0),
            coded_actions=[CodedActionSpec.of(action)],
        )
        horizon = min(task_for(config).horizon, GIF_MAX_FRAMES)
        env = build_env(config.model_copy(update={"horizon": horizon}), 1, for_training=False)
        frames = _episode_frames(
            env.runner, code_alone(env.runner, name), config.seed + 31337, size
        )
        env.close()
    return [Image.fromarray(f) for f in frames[:GIF_MAX_FRAMES]]


def _episode_frames(runner, choose, seed: int, size: int) -> list:
    """Frames of env 0's one episode through the one episode driver, from its first
    observation on."""
    world = runner.world
    frames: list = []

    def choose_and_show(envs, obs):
        if not frames:  # the episode's start, before its first step
            frames.append(world.frame(0, size))
        return choose(envs, obs)

    runner.on_world_step = lambda: frames.append(world.frame(0, size))
    runner.reset_ended = False
    run_episodes(runner, choose_and_show, seed)
    return frames
