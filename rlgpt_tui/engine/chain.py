"""The task planner's chain: solve sub-tasks one by one, then run their solutions in order.

Each stage's solution is the best iteration of its own two-loop run: a coded routine or a
PPO policy over its action table (coded actions included). The chained controller runs
every env on its own clock: it follows stage k's solution until stage k's goal holds, then
moves to stage k+1, and is evaluated on the whole task's goal and horizon. Coded stage
solutions share one ``ctx.memory`` per episode, so what one stage's code learnt of the
world (the tech-tree code keeps a map there) is not lost when the next stage takes over.

The chain driver (:func:`run_task_chain`) lives here too: the planner's sub-tasks, each
solved by an :class:`~rlgpt_tui.engine.engine.Engine` run, then the chained evaluation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np

from rlgpt_tui.agents.team import AgentTeam
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.control import ControlPlane
from rlgpt_tui.engine.engine import Engine, EngineSettings, EventHandler, checkpoint_folder
from rlgpt_tui.engine.result import ChainResult
from rlgpt_tui.engine.resume import ResumeState, finished, recorded_stage_solution, split_runs
from rlgpt_tui.engine.solution import StageSolution
from rlgpt_tui.envs import make_world
from rlgpt_tui.llm.client import LLMAnswerError
from rlgpt_tui.rl.environment import coded_actions_for
from rlgpt_tui.rl.episodes import ActionEntry, EpisodeRunner, build_action_table, run_episodes
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.rl.vec_env import feature_index
from rlgpt_tui.tasks.catalog import get_task

__all__ = ["ChainResult", "StageSolution", "evaluate_chain", "run_task_chain"]

STAGE_CODE_MEMORY = "stage code"  # the ctx.memory key shared by coded stage solutions


def _chain_table(stages: list[StageSolution], world) -> tuple[list[ActionEntry], list[dict]]:
    """One action table for every stage: each stage's entries under ``stage<k>_`` names.

    Coded stage solutions share ``ctx.memory`` (:data:`STAGE_CODE_MEMORY`); coded actions
    inside an RL stage keep one memory per action, as in training."""
    table: list[ActionEntry] = []
    plans: list[dict] = []
    for k, solution in enumerate(stages):
        prefix = f"stage{k}_"
        if solution.coded is not None:
            plans.append({"code": len(table)})
            coded = replace(solution.coded, name=prefix + solution.coded.name)
            table.append(ActionEntry(coded.name, coded=coded, memory_key=STAGE_CODE_MEMORY))
            continue
        config = solution.config
        stage_table = build_action_table(config.primitives, coded_actions_for(config))
        plans.append(
            {
                "offset": len(table),
                "model": solution.model,
                "features": feature_index(world, config.observation),
            }
        )
        for entry in stage_table:
            if entry.coded is None:
                table.append(entry)
            else:
                coded = replace(entry.coded, name=prefix + entry.name)
                table.append(ActionEntry(coded.name, coded=coded, memory_key=entry.name))
    return table, plans


def evaluate_chain(
    stages: list[StageSolution], task: str, env: str, episodes: int, seed: int
) -> EvaluationSummary:
    """Run the chained solutions once per env; ``task``'s measure and stage reach.

    Every env follows stage k's solution until stage k's goal holds (its action is then
    interrupted), then stage k+1's; the whole task's goal and horizon end the episode."""
    final = get_task(task)
    goals = [get_task(s.task) for s in stages]
    world = make_world(env, episodes, seed=seed, task=task)
    table, plans = _chain_table(stages, world)
    runner = EpisodeRunner(world, final, table, seed=seed, reset_ended=False)
    stage = np.zeros(episodes, dtype=np.int64)

    def choose(envs: np.ndarray, obs: np.ndarray) -> np.ndarray:
        picked = np.zeros(len(envs), dtype=np.int64)
        for k, plan in enumerate(plans):
            mine = np.flatnonzero(stage[envs] == k)
            if not len(mine):
                continue
            if "code" in plan:
                picked[mine] = plan["code"]
                continue
            batch = obs[mine] if plan["features"] is None else obs[mine][:, plan["features"]]
            actions, _ = plan["model"].predict(np.asarray(batch, dtype=np.float32))
            picked[mine] = plan["offset"] + np.asarray(actions)
        return picked

    def switch_stages(runner: EpisodeRunner) -> None:
        result = runner.last
        moved = []
        for i in range(episodes):
            while (
                stage[i] < len(goals) - 1
                and goals[stage[i]].success(
                    result.achievements[i : i + 1], result.inventory[i : i + 1]
                )[0]
            ):
                stage[i] += 1
                moved.append(i)
        runner.interrupt(moved)

    try:
        outcomes = run_episodes(runner, choose, seed, after_step=switch_stages)
    finally:
        runner.close()
        world.close()
    length = np.array([o.length for o in outcomes])
    summary = EvaluationSummary.of_measurement(runner.tally.measure(final, seed=seed))
    summary.mean_length = round(float(length.mean()), 1)
    summary.stages = [s.task for s in stages]
    summary.stage_reached = {
        s.task: round(float((stage >= k).mean()), 3) for k, s in enumerate(stages)
    }
    summary.samples = int(length.sum())
    return summary


def run_task_chain(
    settings: EngineSettings,
    team: AgentTeam,
    on_event: EventHandler,
    recorded: list[ev.Event] | None = None,
    on_stage: Callable[[Engine], None] | None = None,
    control: ControlPlane | None = None,
) -> ChainResult:
    """Long-horizon tasks: the planner's sub-tasks, each solved by the two loops, chained.

    The sample budget is shared: each sub-task gets what the earlier ones left. Returns the
    chained evaluation on the whole task (also emitted as an ``evaluation`` event). With
    ``recorded`` (a chain session's events) it continues that chain: finished stages keep
    their recorded solutions, the unfinished one resumes, the rest run as usual.
    ``on_stage`` sees each stage's engine before it runs; ``control`` (pause, stop, edits)
    is shared by every stage and closed after the last one.
    """
    task = get_task(settings.task)
    control = control or ControlPlane(settings.task)
    result: ChainResult | None = None
    try:
        result = _run_stages(settings, team, on_event, recorded or [], on_stage, control, task)
        return result
    finally:  # a stopped chain (resumable) keeps its pending edits for the resume
        stopped = result is None or result.stopped_at is not None
        control.close("the session ended before a safe point used it", keep_pending=stopped)


def _run_stages(settings, team, on_event, recorded, on_stage, control, task) -> ChainResult:
    """The body of :func:`run_task_chain`."""
    recorded = ev.events_from_records(recorded)
    planned = [e for e in recorded if isinstance(e, ev.TaskPlanProposed)]
    if planned:
        subtasks = planned[0].subtasks
    else:
        try:
            subtasks = team.planner.subtasks(task)
        except LLMAnswerError as error:  # one failed answer: solve the task as one stage
            subtasks = [task.name]
            on_event(
                ev.EngineError(
                    iteration=0,
                    agent=team.label,
                    message=f"the planner's answer failed ({error}): one stage, {task.name}",
                )
            )
        on_event(
            ev.TaskPlanProposed(iteration=0, agent=team.label, task=task.name, subtasks=subtasks)
        )
    runs = split_runs(recorded)
    stages, spent = [], 0
    for k, name in enumerate(subtasks):
        left = settings.max_samples - spent
        stage_settings = replace(settings, task=name, max_samples=max(left, 1))
        if settings.artifacts_dir:
            folder = str(Path(settings.artifacts_dir) / "stages" / f"{k}-{name}")
            stage_settings = replace(stage_settings, artifacts_dir=folder)
        if settings.tensorboard_dir:  # the stage's TensorBoard runs apart from the others'
            board = str(Path(settings.tensorboard_dir) / f"stage{k + 1}-{name}")
            stage_settings = replace(stage_settings, tensorboard_dir=board)
        run = runs[k] if k < len(runs) else None
        if run is not None and finished(run):
            checkpoints = partial(checkpoint_folder, stage_settings.artifacts_dir)
            solution, samples = recorded_stage_solution(run, checkpoints, team.fast.shelf)
        else:
            resume = ResumeState.from_events(run) if run else None
            engine = Engine(stage_settings, team, on_event, resume=resume, control=control)
            engine.close_control_at_end = False
            if on_stage is not None:
                on_stage(engine)
            result = engine.run()
            if not result.end.ended_on_its_own:
                return ChainResult(subtasks, stopped_at=name, end=result.end)
            solution, samples = engine.solution, result.total_samples
        spent += samples
        if solution is None:
            break
        stages.append(solution)
    chain = ChainResult(subtasks, [s.task for s in stages], spent)
    if stages:
        chain.evaluation = evaluate_chain(
            stages, task.name, settings.env, settings.eval_episodes, seed=20_000 + settings.seed
        )
        on_event(
            ev.EvaluationDone(
                iteration=0,
                agent=team.label,
                subject=f"chain {' -> '.join(s.task for s in stages)}",
                result=chain.summary(),
            )
        )
    return chain
