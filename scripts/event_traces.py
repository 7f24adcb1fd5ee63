"""Event traces of five builtin-agent sessions, to check that a refactoring keeps behaviour.

    python scripts/event_traces.py record OUTDIR [NAME ...]
    python scripts/event_traces.py compare DIR_A DIR_B

``record`` runs each scenario (all five by default) headless with tiny budgets and fixed
seeds, each in a fresh process with its own sessions folder, and writes the session's
recorded events as JSON lines to ``OUTDIR/NAME.jsonl``, with what differs from run to run
normalised away (:func:`normalise`): times, durations and speeds, the sessions folder,
sequence numbers (renumbered), throttled progress events, and whether a world's kernels
were still compiling. ``compare`` exits 1 with the first difference of each scenario.

The scenarios (builtin agent, Craftax-Classic):

- ``plain``: collect_wood, two iterations (RL alone, then RL over coded navigation and the
  task's own code, starting from that code).
- ``scored``: crafter_score, one iteration (the builtin skill library, one PPO policy).
- ``approval``: collect_wood with an approver that rejects the first plan and the first
  code of go_to_tree and accepts the rest (the answers recorded as the app records them).
- ``edits``: collect_wood with a person's plan and code edits through the control plane:
  a code-alone plan and its code queued while paused before the first safe point, an RL
  edit (applied to the RL that iteration trains from the code), then during iteration 2's
  training a code edit (swapped in between rollouts) and a plan edit (refused: no later
  plan would use it).
- ``resume``: collect_wood stopped in iteration 2's training (checkpointed) with an RL edit
  and a code edit pending, then resumed from the store: the recorded plan and judged code
  are kept, training continues from its checkpoint and the pending edits are carried.

Edits and stops are made from the event handler, which runs on the engine's thread, so
they land at the same point of every run: two records of the same code are identical.
``tests/traces/`` holds the golden traces that ``tests/test_event_traces.py`` compares
with (record them again after an intended change of behaviour, and read the diff).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SCENARIOS = ("plain", "scored", "approval", "edits", "resume")

#: keys whose values are timings, speeds or wall clocks (dropped wherever they occur), and
#: any key ending in ``_seconds``
TIMING_KEYS = {"time", "fps", "elapsed", "latency_s", "time_elapsed", "started"}

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python scripts/event_traces.py` from anywhere
    sys.path.insert(0, str(ROOT))


def tiny(**overrides: Any):
    """Engine settings small enough for a trace: the tests' tiny settings."""
    from tests.settings import tiny_settings  # the checkout's tests (ROOT is on sys.path)

    return tiny_settings(**overrides)


# -- the scenarios: each returns the session id it recorded in the store ---------------------
def plain(store) -> int:
    from rlgpt_tui.session import Session

    session = Session.create(store, tiny())
    session.run()
    return session.id


def scored(store) -> int:
    from rlgpt_tui.session import Session

    settings = tiny(
        task="crafter_score",
        max_iterations=1,
        samples_per_iteration=1024,
        max_samples=1024,
        eval_episodes=4,
        final_episodes=4,
    )
    session = Session.create(store, settings)
    session.run()
    return session.id


def approval(store) -> int:
    from rlgpt_tui.engine.steps.context import ProposalRejected
    from rlgpt_tui.session import Session

    session = Session.create(store, tiny())
    asked: list[tuple[str, str]] = []

    def approver(kind: str, target: str, proposal: Any) -> Any:
        asked.append((kind, target))
        first = asked.count((kind, target)) == 1
        if first and (kind, target) in {("plan", ""), ("code", "go_to_tree")}:
            session.control.approval(kind, target, "rejected")
            raise ProposalRejected("rejected by the trace's approver")
        session.control.approval(kind, target, "approved")
        return proposal

    session.engine.approver = approver
    session.run()
    return session.id


def edits(store) -> int:
    from rlgpt_tui.agents.schemas import Plan, SubAction
    from rlgpt_tui.engine import events as ev
    from rlgpt_tui.engine.control import EditRefused
    from rlgpt_tui.library.templates import template_code
    from rlgpt_tui.session import Session

    session = Session.create(store, tiny(samples_per_iteration=2048))
    control = session.control
    control.pause()  # held at the first safe point until the handler resumes it
    code_only = Plan(
        subactions=[
            SubAction(
                name="collect_wood",
                description="chop a tree",
                mode="code",
                reason="a person said so",
            )
        ]
    )
    control.edit_plan(code_only)
    control.edit_code("collect_wood", "# a person's code\n" + template_code("collect_wood"))
    control.edit_rl_config("collect_wood", {"samples": 1536, "ppo": {"ent_coef": 0.02}})
    made: list[str] = []

    def on_event(event: ev.Event) -> None:
        if isinstance(event, ev.ControlChanged) and event.state == "paused":
            control.resume()
        if isinstance(event, ev.TrainingProgress) and event.iteration == 1 and not made:
            made.append("code")
            edited = template_code("go_to_tree") + "\n# a person's version\n"
            control.edit_code("go_to_tree", edited)
            try:
                control.edit_plan(code_only)
            except EditRefused:
                made.append("plan refused")

    session.run(on_event)
    return session.id


def resume(store) -> int:
    from rlgpt_tui.engine import events as ev
    from rlgpt_tui.library.templates import template_code
    from rlgpt_tui.session import Session

    settings = tiny(max_iterations=3, samples_per_iteration=2048, checkpoint_every=1)
    session = Session.create(store, settings)
    control = session.control
    rollouts: list[int] = []

    def stop_in_training(event: ev.Event) -> None:
        if isinstance(event, ev.TrainingProgress) and event.iteration == 1:
            rollouts.append(event.metrics.samples)
            if len(rollouts) == 2:
                control.edit_rl_config("collect_wood", {"samples": 3072})
                edited = template_code("code_collect_wood") + "\n# edited while stopped\n"
                control.edit_code("code_collect_wood", edited)
                control.stop()

    session.run(stop_in_training)
    assert store.get(session.id).status == "stopped", store.get(session.id).status
    Session.resume(store, session.id).run()
    return session.id


# -- normalising ----------------------------------------------------------------------------
def normalise(records: list[dict[str, Any]], sessions: str) -> list[dict[str, Any]]:
    """The events as a trace: what varies from run to run, with the same code, removed.

    Dropped: timing keys (:data:`TIMING_KEYS`, ``*_seconds``); a phase's progress events
    but its last (the others are throttled to one a second); ``phase_started`` events that
    say a world's kernels are being compiled or loaded (whether they still are depends on a
    thread).
    Replaced: the sessions folder by ``<sessions>``; sequence numbers (``seq`` and the code
    versions that name them) by the event's index in the trace; texts longer than
    :data:`LONG_TEXT` (code) by their digest."""
    kept = [r for r in records if not _noise(r)]
    index = {r["seq"]: i for i, r in enumerate(kept)}
    out = []
    for i, record in enumerate(kept):
        record = dict(record)
        record.pop("seq", None)
        out.append({"i": i} | _clean(record, index, sessions))
    return out


def _noise(record: dict[str, Any]) -> bool:
    kind = record.get("kind")
    if kind == "phase_progress":
        return record.get("done") != record.get("total")
    if kind == "phase_started":
        detail = str(record.get("detail", ""))
        return "Craftax's kernels" in detail
    return False


def _clean(value: Any, index: dict[int, int] | None, sessions: str, key: str = "") -> Any:
    """``value`` without timing keys, ``sessions`` replaced, and (``index`` given) code
    versions renumbered from sequence numbers to indices in the trace."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in TIMING_KEYS or k.endswith("_seconds"):
                continue
            if k == "versions" and isinstance(v, dict) and index is not None:  # per version
                out[k] = {str(_seq(int(n), index)): c for n, c in v.items() if n.isdigit()}
                continue
            out[k] = _clean(v, index, sessions, k)
        return out
    if isinstance(value, list):
        return [_clean(v, index, sessions, key) for v in value]
    if isinstance(value, str):
        return _short(value.replace(sessions, "<sessions>"))
    if key == "version" and isinstance(value, int) and not isinstance(value, bool):
        return value if index is None else _seq(value, index)
    return value


#: longer texts (code, mostly) are kept as their digest, so that a trace stays small
LONG_TEXT = 400


def _short(text: str) -> str:
    """``text``, or its digest and size when it is longer than :data:`LONG_TEXT`."""
    if len(text) <= LONG_TEXT or text.startswith("<text sha256:"):
        return text
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    return f"<text sha256:{digest}, {len(text)} chars, {text.count(chr(10))} lines>"


def _seq(seq: int, index: dict[int, int]) -> int | str:
    return index.get(seq, f"seq {seq} (not in the trace)")


# -- record and compare ---------------------------------------------------------------------
def record_one(name: str, out: Path) -> None:
    """Run scenario ``name`` in this process and write its trace to ``out/name.jsonl``."""
    from rlgpt_tui.store import SessionStore

    scenario: Callable = globals()[name]
    with tempfile.TemporaryDirectory(prefix=f"trace-{name}-") as folder:
        store = SessionStore(folder)
        session_id = scenario(store)
        records = store.events(session_id)
        trace = normalise(records, str(Path(folder).resolve()))
        trace = normalise_paths(trace, folder)
    out.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(r, sort_keys=True) for r in trace]
    (out / f"{name}.jsonl").write_text("\n".join(lines) + "\n")


def normalise_paths(trace: list[dict[str, Any]], folder: str) -> list[dict[str, Any]]:
    """The sessions folder as given (not resolved) replaced too."""
    text = json.dumps(trace).replace(folder, "<sessions>")
    return json.loads(text)


def record(out: Path, names: list[str]) -> int:
    """Each scenario in a fresh process (no world compiled, no cache warmed by another)."""
    for name in names or SCENARIOS:
        if name not in SCENARIOS:
            print(f"unknown scenario {name!r}: use {', '.join(SCENARIOS)}", file=sys.stderr)
            return 2
        began = time.monotonic()
        command = [sys.executable, __file__, "_one", name, str(out)]
        done = subprocess.run(command, env=os.environ | {"PYTHONHASHSEED": "0"})
        if done.returncode:
            print(f"{name}: failed ({done.returncode})", file=sys.stderr)
            return 1
        print(f"{name}: {time.monotonic() - began:.0f} s -> {out / (name + '.jsonl')}")
    return 0


def compare(a: Path, b: Path, names: list[str] | None = None) -> int:
    """1 if any scenario's traces differ (the first difference of each is printed)."""
    differ = 0
    for name in names or SCENARIOS:
        first, second = a / f"{name}.jsonl", b / f"{name}.jsonl"
        if not first.is_file() or not second.is_file():
            print(f"{name}: missing {first if not first.is_file() else second}")
            differ = 1
            continue
        left, right = _lines(first), _lines(second)
        if left == right:
            print(f"{name}: identical ({len(left)} events)")
            continue
        differ = 1
        at = next((i for i, (x, y) in enumerate(zip(left, right, strict=False)) if x != y), None)
        if at is None:
            at = min(len(left), len(right))
        print(f"{name}: differ at event {at} ({len(left)} vs {len(right)} events)")
        print(f"  {a.name}: {left[at] if at < len(left) else '(end)'}")
        print(f"  {b.name}: {right[at] if at < len(right) else '(end)'}")
    return differ


def _lines(path: Path) -> list[str]:
    """A trace's lines, with the timing keys dropped again (a trace recorded before a key
    joined :data:`TIMING_KEYS` compares with one recorded after)."""
    return [
        json.dumps(_clean(json.loads(line), None, "\0"), sort_keys=True)
        for line in path.read_text().splitlines()
    ]


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "record":
        return record(Path(argv[1]), argv[2:])
    if len(argv) == 3 and argv[0] == "_one":
        record_one(argv[1], Path(argv[2]))
        return 0
    if len(argv) >= 3 and argv[0] == "compare":
        return compare(Path(argv[1]), Path(argv[2]), argv[3:])
    print(__doc__.split("\n\n")[0] if __doc__ else "", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
