"""A run killed during its final choice, resumed: it finishes with that choice, among the
candidates recorded before the kill, instead of starting another iteration."""

from __future__ import annotations

from pathlib import Path

import pytest

from rlgpt_tui.session import Session
from rlgpt_tui.store import SessionStore
from tests.waiting import kill_run_when

RUN_FLAGS = [
    "--task",
    "collect_wood",
    "--iterations",
    "3",
    "--samples-per-iteration",
    "2048",
    "--max-samples",
    "2048",  # iteration 0 spends the session's samples: the run ends after it
    "--num-envs",
    "16",
    "--eval-episodes",
    "8",
    "--final-episodes",
    "32",  # the final evaluation the run is killed in
]


@pytest.mark.slow
def test_kill_9_in_the_final_evaluation_then_resume_finishes_with_the_recorded_candidates(
    tmp_path: Path,
) -> None:
    def in_final_evaluation(reader: SessionStore) -> bool:
        return any(
            e["kind"] == "phase_started" and e["phase"] == "final evaluation"
            for e in reader.events(1)
        )

    reader = kill_run_when(RUN_FLAGS, tmp_path, in_final_evaluation, 300, "the final evaluation")
    before = reader.events(1)
    assert reader.get(1).status == "interrupted"
    assert not any(e["kind"] == "solution_chosen" for e in before), "the kill came too late"
    offered = [e["candidate"] for e in before if e["kind"] == "candidate_offered"]
    assert [(c["kind"], c["subject"]) for c in offered] == [("RL", "RL policy (RL, iteration 1)")]
    assert Path(offered[0]["weights"]).is_file()

    Session.resume(SessionStore(tmp_path), 1).run()
    after = reader.events(1)
    assert after[: len(before)] == before  # nothing recorded was lost or changed
    resumed = after[len(before) :]
    kinds = [e["kind"] for e in resumed]
    # no new iteration: no plan, no training; straight to the final choice
    assert "plan_proposed" not in kinds and "training_started" not in kinds
    [resumed_at] = [e for e in resumed if e["kind"] == "session_resumed"]
    assert resumed_at["ended"] == "sample budget spent" and resumed_at["iteration"] == 0
    chosen = next(e for e in resumed if e["kind"] == "solution_chosen")
    # the policy trained before the kill, loaded from its weights, measured on fresh worlds
    assert [c["subject"] for c in chosen["candidates"]] == ["RL policy (RL, iteration 1)"]
    assert chosen["candidates"][0]["episodes"] == 32
    assert chosen["result"]["stop_value"] == offered[0]["value"]
    finished = next(e for e in resumed if e["kind"] == "session_finished")
    assert finished["end"] == "sample budget spent" and finished["result"]["kind"] == "RL"
    summary = reader.get(1)
    assert summary.status == "finished" and summary.iterations == 1
