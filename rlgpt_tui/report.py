"""Session reports: markdown (plans, code, verdicts, success table, curves, a GIF) or JSON.

Everything comes from what the store recorded; the GIF replays the session's best
solution (its policy checkpoint, or its code) for one episode in a fresh world.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from PIL import Image

from rlgpt_tui.curves import draw_learning_curves, save_curves
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.phases import SessionPhases
from rlgpt_tui.engine.provenance import planned_by, solution_provenance
from rlgpt_tui.phase_report import phase_table, phase_totals_text
from rlgpt_tui.recorded import recorded_target
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
from rlgpt_tui.rl.episodes import code_alone, run_episodes
from rlgpt_tui.skills.validation import validate
from rlgpt_tui.store import SessionStore, SessionSummary, StoreError
from rlgpt_tui.tasks import Measure, result_text

RECORD_TABLES = (
    "plans",
    "code_versions",
    "training_runs",
    "training_metrics",
    "evaluations",
    "verdicts",
    "iterations",
    "llm_calls",
    "human_edits",
)
GIF_MAX_FRAMES = 240


def session_record(store: SessionStore, session_id: int) -> dict[str, Any]:
    """The session, every record table, the event log and where its time went (seconds
    per phase), as plain data (JSON export)."""
    summary = store.get(session_id)
    record: dict[str, Any] = {"session": summary.__dict__}
    for table in RECORD_TABLES:
        record[table] = store.rows(table, session_id)
    record["events"] = store.events(session_id)
    record["phases"] = store.phase_times(session_id).as_dict()  # where the time went
    return record


def final_code(store: SessionStore, session_id: int) -> dict[str, str]:
    """Each coded sub-action's last accepted code (or its last valid version)."""
    code: dict[str, str] = {}
    for row in store.rows("code_versions", session_id):
        if row["valid"]:
            code[row["subaction"]] = row["code"]
    for event in ev.events_from_records(store.events(session_id)):
        if isinstance(event, ev.SubActionDone) and event.code:
            code[event.subaction] = event.code
        elif isinstance(event, ev.EditApplied) and event.what == "code":
            code[event.target] = event.after  # swapped in during training
    return code


def session_markdown(store: SessionStore, session_id: int, assets: dict[str, str] | None) -> str:
    """A readable report; ``assets`` maps 'curves'/'gif' to image paths to embed."""
    s = store.get(session_id)
    events = ev.events_from_records(store.events(session_id))
    phases = store.phase_times(session_id)
    evaluations = store.rows("evaluations", session_id)
    lines = _summary_lines(s, events, phases)
    lines += _iteration_table(store.rows("iterations", session_id), s.measure)
    lines += phase_table(phases)
    lines += _plan_lines(store.rows("plans", session_id))
    lines += _action_space_lines(events)
    lines += _evaluation_table(evaluations)
    lines += _achievement_table([json.loads(r["result"]) for r in evaluations])
    lines += _verdict_lines(store.rows("verdicts", session_id))
    lines += _edit_lines(
        store.rows("human_edits", session_id), store.rows("code_versions", session_id)
    )
    lines += _llm_call_table(store.rows("llm_calls", session_id))
    if assets:
        lines += ["", "## Learning curves and an evaluation episode", ""]
        for name, path in assets.items():  # images shown; the SVG linked
            lines.append(f"[{name}]({path})" if path.endswith(".svg") else f"![{name}]({path})")
    lines += ["", "## Final code", ""]
    for name, code in final_code(store, session_id).items():
        lines += [f"### `{name}`", "", "```python", code.rstrip(), "```", ""]
    return "\n".join(lines) + "\n"


def _summary_lines(s: SessionSummary, events: list[ev.Event], phases: SessionPhases) -> list[str]:
    """The report's title and its list: agent, status, settings, result, totals."""
    settings = s.settings
    m = s.measure
    target = recorded_target(settings) or m.default_target
    lines = [
        f"# Session {s.id}: {s.task} on {s.env}",
        "",
        f"- agent: **{s.agent}**" + (" (no LLM)" if s.agent == "builtin" else ""),
        f"- status: {s.status} ({s.reason or 'no reason recorded'})",
        f"- seed: {settings.get('seed')}; envs: {settings.get('num_envs')}; judged by its "
        f"{m.label}, target {m.show(target)}; budget {settings.get('max_samples', 0):,} "
        f"samples, {settings.get('max_iterations')} iterations",
        *_result_lines(events, s.best, m),
        f"- training samples used: {s.total_samples:,}; LLM tokens: {s.tokens:,}",
        f"- started {time.strftime('%Y-%m-%d %H:%M', time.localtime(s.created_at))}",
    ]
    if phases.iterations:
        lines.append(f"- {phase_totals_text(phases)}")
    return lines + _run_score_lines(events)


def _iteration_table(iterations: list[dict[str, Any]], m: Measure) -> list[str]:
    lines = [
        "",
        f"## {m.label.capitalize()} per iteration",
        "",
        f"| iteration | plan | {m.label} | samples | total samples | tokens |",
        "|---|---|---|---|---|---|",
    ]
    for row in iterations:
        lines.append(
            f"| {row['iteration'] + 1} | {row['plan']} | {m.show(row['value'])} | "
            f"{row['samples']:,} | {row['total_samples']:,} | {row['tokens']:,} |"
        )
    return lines


def _plan_lines(plans: list[dict[str, Any]]) -> list[str]:
    lines = ["", "## Plans", ""]
    for row in plans:
        plan = json.loads(row["plan"])
        by = planned_by(row["source"], row["agent"])
        lines.append(f"**Iteration {row['iteration'] + 1}** (plan by {by}):")
        for sub in plan.get("subactions", []):
            extra = sub.get("high_level_actions") or []
            hl = f"; high-level actions: {', '.join(extra)}" if extra else ""
            lines.append(f"- `{sub['name']}` — {sub['mode']}: {sub.get('reason', '')}{hl}")
        lines.append("")
    return lines


def _action_space_lines(events: list[ev.Event]) -> list[str]:
    """The coded actions each training (or reused policy) had in PPO's action space."""
    started = [e for e in events if isinstance(e, ev.TrainingStarted | ev.PolicyReused)]
    if not started:
        return []
    lines = ["## Coded actions in PPO's action space", ""]
    for e in started:
        if isinstance(e, ev.PolicyReused):  # the library's trained policy, whole
            coded = ", ".join(e.coded_actions) or "none"
            lines.append(f"- iteration {e.iteration + 1}, `{e.subaction}`: {coded}; {e.note}")
            continue
        config = e.config
        coded = ", ".join(config.get("coded_actions") or []) or "none"
        planned = config.get("plan_high_level_actions")
        plan = f" (the plan's: {', '.join(planned) or 'none'})" if planned is not None else ""
        note = config.get("high_level_actions_note")
        lines.append(
            f"- iteration {e.iteration + 1}, `{e.subaction}`: {coded}{plan}"
            + (f"; {note}" if note else "")
        )
    lines.append("")
    return lines


def _evaluation_table(evaluations: list[dict[str, Any]]) -> list[str]:
    lines = ["## Evaluations", "", "| iteration | subject | measure (95% CI) | episodes |"]
    lines.append("|---|---|---|---|")
    for row in evaluations:
        result = json.loads(row["result"])
        shown = "-" if row["value"] is None else result_text(result, episodes=False, ends=False)
        number = row["iteration"] + 1
        count = str(row["episodes"])
        if result.get("decision"):  # stopped once its episodes decided the question
            count = f"{row['episodes']} of {result['planned']} ({result['decision']})"
        lines.append(f"| {number} | {row['subject']} | {shown} | {count} |")
    return lines


def _verdict_lines(verdicts: list[dict[str, Any]]) -> list[str]:
    lines = ["", "## Critic verdicts", ""]
    for row in verdicts:
        mark = "ok" if row["success"] else "failed"
        tip = f" Suggestion: {row['suggestion']}" if row["suggestion"] else ""
        lines.append(
            f"- iteration {row['iteration'] + 1}, `{row['subaction']}` ({row['agent']}): "
            f"**{mark}**, {row['reason']}.{tip}"
        )
    return lines


def _edit_lines(edits: list[dict[str, Any]], code_versions: list[dict[str, Any]]) -> list[str]:
    """A person's edits during the run, each with its outcome and the code version it made."""
    if not edits:
        return []
    lines = ["", "## Human edits", ""]
    names = version_names(code_versions)
    for row in edits:
        when = time.strftime("%H:%M:%S", time.localtime(row["time"]))
        outcome = row.get("outcome") or "applied"
        detail = f" ({row['detail']})" if row.get("detail") else ""
        version_id = row.get("version")
        name = names.get(version_id, f"code version {version_id}") if version_id else ""
        version = f", now {name}" if version_id else ""
        lines.append(
            f"- {when}, iteration {row['iteration'] + 1}: {row['what']} {row['target']} "
            f"**{outcome}**{detail}{version}".replace("  ", " ")
        )
    return lines


def _llm_call_table(calls: list[dict[str, Any]]) -> list[str]:
    """The LLM calls' totals, then per role: answers valid and invalid, repairs, failures."""
    if not calls:
        return []
    tokens = sum(c["prompt_tokens"] + c["completion_tokens"] for c in calls)
    latency = sum(c["latency_s"] for c in calls) / len(calls)
    lines = [
        "",
        "## LLM calls",
        "",
        f"{len(calls)} calls, {tokens:,} tokens, mean latency {latency:.2f} s "
        f"(model {calls[0]['model']}).",
        "",
        "| role | calls | answers valid | invalid | repair requests | failed calls | "
        "structured output |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for role in sorted({c["role"] for c in calls}):
        mine = [c for c in calls if c["role"] == role]
        valid = sum(1 for c in mine if c.get("validated") == 1)
        invalid = sum(1 for c in mine if c.get("validated") == 0)
        repairs = sum(1 for c in mine if (c.get("repair_round") or 0) > 0)
        failed = sum(1 for c in mine if not c["ok"])
        modes = sorted({c.get("mode") or "plain" for c in mine if c["ok"]})
        lines.append(
            f"| {role} | {len(mine)} | {valid} | {invalid} | {repairs} | {failed} | "
            f"{', '.join(modes) or '-'} |"
        )
    return lines


def _result_lines(events: list[ev.Event], best: float | None, m: Measure) -> list[str]:
    """The result (the chosen solution's fresh evaluation) and every candidate's, beside the
    best of the run's own evaluations (which chose and stopped, so it is optimistic)."""
    own = (
        f"best of the run's own evaluations (optimistic: they made its decisions): {m.show(best)}"
        if best is not None
        else "the run ended before its first evaluation"
    )
    chosen = [e for e in events if isinstance(e, ev.SolutionChosen)]
    if not chosen:
        return [f"- {own}; no solution was chosen on fresh worlds"]
    r = chosen[-1].result
    lines = [
        f"- **result: {r.text()}**, {r.subject}, on fresh worlds no decision used (seed {r.seed})",
        f"- {own}",
    ]
    for c in chosen[-1].candidates:
        stop = "-" if c.stop_value is None else m.show(c.stop_value)
        lines.append(f"  - candidate {c.subject}: fresh {c.text(m)}; its own evaluation {stop}")
    upto = events.index(chosen[-1])
    lines.append("- who wrote the solution's coded actions:")
    lines += [f"  - {line}" for line in solution_provenance(events[:upto], r).lines()]
    return lines


def _run_score_lines(events: list[ev.Event]) -> list[str]:
    """Scored sessions: Crafter's score as Crafter defines it, over every training episode."""
    finished = [e for e in events if isinstance(e, ev.SessionFinished) and e.run]
    if not finished:
        return []
    run = finished[-1].run
    return [
        f"- over all {run.episodes or 0:,} training episodes of the run (Crafter's own "
        f"definition of its score): {run.text(ends=False)}"
    ]


def _achievement_table(results: list[dict[str, Any]]) -> list[str]:
    """Scored sessions: each evaluation's per-achievement success rates and episode ends."""
    scored = [r for r in results if r.get("measure") == Measure.CRAFTER_SCORE]
    if not scored:
        return []
    lines = ["", "### Achievements per evaluation (success rate per episode)", ""]
    lines.append("| achievement | " + " | ".join(f"eval {k}" for k in range(len(scored))) + " |")
    lines.append("|---" * (len(scored) + 1) + "|")
    for name in scored[-1]["achievement_rates"]:
        rates = [r["achievement_rates"].get(name, 0.0) for r in scored]
        lines.append(f"| {name} | " + " | ".join(f"{v:.2f}" for v in rates) + " |")
    ends = " | ".join(
        ", ".join(f"{k} {n}" for k, n in (r.get("episode_ends") or {}).items()) for r in scored
    )
    lines.append(f"| how episodes ended | {ends} |")
    return lines


def version_names(rows: list[dict[str, Any]]) -> dict[int, str]:
    """Each code version's store id -> ``SUB-ACTION vN`` (the N-th version of it)."""
    counts: dict[str, int] = {}
    names = {}
    for row in rows:
        counts[row["subaction"]] = counts.get(row["subaction"], 0) + 1
        names[row["event_seq"]] = f"{row['subaction']} v{counts[row['subaction']]}"
    return names


def export_session(
    store: SessionStore,
    session_id: int,
    fmt: str = "md",
    out: str | Path | None = None,
    with_gif: bool = True,
) -> Path:
    """Write the report (and its images for markdown); returns the report's path."""
    folder = Path(out) if out else store.session_dir(session_id) / "report"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreError(f"cannot write the report to {folder}: {error.strerror}") from None
    if fmt == "json":
        path = folder / f"session-{session_id}.json"
        path.write_text(json.dumps(session_record(store, session_id), indent=1, default=str))
        return path
    assets: dict[str, str] = {}
    summary = store.get(session_id)
    target = recorded_target(summary.settings)
    curves = draw_learning_curves(
        store.rows("training_metrics", session_id),
        store.rows("evaluations", session_id),
        store.rows("iterations", session_id),
        target=target or summary.measure.default_target,
    )
    if curves is not None:
        png, svg = save_curves(curves, folder)
        assets["learning curves"] = png.name
        assets["learning curves (SVG)"] = svg.name
    if with_gif:
        frames = evaluation_frames(store, session_id)
        if frames:
            frames[0].save(
                folder / "episode.gif",
                save_all=True,
                append_images=frames[1:],
                duration=80,
                loop=0,
            )
            assets["evaluation episode"] = "episode.gif"
    path = folder / f"session-{session_id}.md"
    path.write_text(session_markdown(store, session_id, assets))
    return path


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


def skill_markdown(skill: Any, versions: list[Any] | None = None) -> str:
    """One library skill as text: who wrote it and where, its versions, its measured record
    and its code (``skills show`` and the app's library screen)."""
    record = skill.record
    lines = [
        f"# {skill.name} v{skill.version} ({skill.world})",
        "",
        skill.docstring or "(no docstring)",
        "",
        f"- author: {skill.author}",
        f"- made in: {skill.made_in or '-'}"
        + (f" (code version {skill.code_seq})" if skill.code_seq else ""),
        f"- origin: {skill.origin}",
        f"- calls: {record.calls_text}; ends: {record.ends_text}",
        f"- success of the task it served: {record.success_text}",
    ]
    if versions and len(versions) > 1:
        lines.append(
            "- versions: "
            + ", ".join(
                f"v{v.version} by {v.author}" + (" (shown)" if v.id == skill.id else "")
                for v in versions
            )
        )
    lines += ["", "```python", skill.source.rstrip("\n"), "```"]
    return "\n".join(lines)
