"""Typed ends, edits, worlds and worker messages: what replaced parsed strings and switches."""

from __future__ import annotations

import pytest

from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.ends import EndKind, RunEnd
from rlgpt_tui.engine.resume import finished, run_end
from rlgpt_tui.envs import WORLDS, UnknownWorldError, world_info
from rlgpt_tui.rl.config import RLConfig
from rlgpt_tui.sandbox.protocol import Loaded, ProtocolError, RewardValues, Stepped


def _finished(reason: str, end: str = "") -> dict:
    event = ev.SessionFinished(0, "builtin", reason=reason, best=0.0, total_samples=0, tokens=0)
    record = event.to_dict()
    if not end:
        record.pop("end")  # as sessions recorded before RunEnd existed
    else:
        record["end"] = end
    return record


@pytest.mark.parametrize(
    ("reason", "kind", "resumable"),
    [
        ("target reached", EndKind.TARGET, False),
        ("iterations used up", EndKind.FINISHED, False),
        ("sample budget spent", EndKind.SAMPLE_BUDGET, False),
        ("token budget spent", EndKind.TOKEN_BUDGET, False),
        ("stopped", EndKind.STOPPED, True),
        ("error: the model's slow answer failed", EndKind.ERROR, True),
    ],
)
def test_old_recorded_reasons_read_as_typed_ends(reason, kind, resumable) -> None:
    record = _finished(reason)
    end = run_end([record])
    assert end is not None and end.kind is kind and end.text == reason
    assert finished([record]) is not resumable
    assert end.status == {"stopped": "stopped", "error": "failed"}.get(kind.value, "finished")


def test_a_new_record_keeps_the_errors_text_and_its_kind() -> None:
    end = RunEnd.failed("cannot reach http://x: connection refused")
    record = _finished(end.text, end.kind.value)
    assert run_end([record]) == end and end.text.startswith("error: cannot reach")


def test_the_world_registry_names_each_worlds_capabilities_without_making_one() -> None:
    assert list(WORLDS) == ["craftax", "crafter", "minedojo"]
    assert [w.default_num_envs for w in WORLDS.values()] == [64, 8, 1]
    assert "voxels" in world_info("minedojo").observation_segments
    assert "voxels" not in world_info("craftax").observation_segments
    with pytest.raises(UnknownWorldError, match="use one of craftax, crafter, minedojo"):
        world_info("nethack")
    # RLConfig checks segments against the registry's world
    RLConfig(task="collect_wood", env="minedojo", observation=["voxels"])
    with pytest.raises(ValueError, match="unknown observation segment"):
        RLConfig(task="collect_wood", env="craftax", observation=["voxels"])
    with pytest.raises(ValueError, match="unknown env 'nethack'"):
        RLConfig(task="collect_wood", env="nethack")


@pytest.mark.parametrize(
    "reply",
    [
        {"next": [0], "ends": []},  # two envs asked
        {"next": [0, 99], "ends": []},  # no such action
        {"next": [0, -1], "ends": [[1, "returned"]]},  # an end without its detail
        {"next": [0, True], "ends": []},
        ["not", "an", "object"],
    ],
)
def test_a_step_reply_of_the_wrong_shape_is_a_protocol_error(reply) -> None:
    with pytest.raises(ProtocolError):
        Stepped.parse(reply, asked=2, actions=17)


def test_replies_read_back_as_what_the_worker_sent() -> None:
    reply = {"next": [3, -1], "ends": [[1, "returned", ""]], "begun": [[1, ["collect_wood"]]]}
    stepped = Stepped.parse(reply, 2, 17)
    assert stepped.next == [3, -1] and stepped.ends[0].reason == "returned"
    assert stepped.begun == [(1, ["collect_wood"])]
    assert Stepped.parse(stepped.to_json(), 2, 17) == stepped
    for begun in ([[1, "collect_wood"]], [[1, ["x" * 61]]], [[1, ["a"] * 33]], [["1", []]]):
        with pytest.raises(ProtocolError):  # untrusted code's steps: bounded, typed
            Stepped.parse(reply | {"begun": begun}, 2, 17)
    loaded = Loaded.parse({"actions": {"0": None, "1": "SyntaxError"}, "reward": None})
    assert loaded.errors == {1: "SyntaxError"}
    with pytest.raises(ProtocolError):
        RewardValues.parse({"values": ["1"], "failures": {}}, 1)


#: evaluation summaries as sessions recorded them: the first format (a success rate), the
#: measure's, a decided one, a trained policy's, a chain's, and one with a key no field names
RECORDED_SUMMARIES = [
    {
        "episodes": 8,
        "success_rate": 0.5,
        "ci95": [0.2, 0.8],
        "mean_length": 90.5,
        "mean_return": 0.5,
        "samples": 700,
        "score": None,
    },
    {
        "measure": "crafter_score",
        "value": 12.5,
        "ci95": [10.0, 15.0],
        "episodes": 16,
        "success_rate": 0.0,
        "score": 12.5,
        "achievement_rates": {"collect_wood": 1.0},
        "episode_ends": {"horizon": 16},
    },
    {
        "measure": "success_rate",
        "value": 0.625,
        "ci95": [0.625, 1.0],
        "episodes": 8,
        "success_rate": 0.625,
        "score": None,
        "achievement_rates": {},
        "episode_ends": {"success": 5},
        "mean_length": 12.0,
        "mean_return": 1.0,
        "samples": 60,
        "decision": "at or above the target 0.60",
        "episodes_used": 5,
        "planned": 8,
        "range": [0.625, 1.0],
        "coded_notes": {"plan": {"eat_cow failed": 3}},
        "coded_calls": {"plan": {"calls": 4, "begun": {"go": 4}}},
        "coded_decision_share": 0.5,
        "training_samples": 1024,
        "coded_actions": {"go": {"calls": 3, "steps": 9, "end_reasons": {"returned": 3}}},
    },
    {
        "subtasks": ["collect_wood", "place_table"],
        "solved_stages": ["collect_wood"],
        "measure": "success_rate",
        "value": 0.25,
        "stages": ["collect_wood"],
        "stage_reached": {"collect_wood": 1.0},
        "samples": 400,
        "training_samples": 2048,
    },
    {"success_rate": 0.5, "a later version's key": [1, 2]},
    {},
]


@pytest.mark.parametrize("record", RECORDED_SUMMARIES)
def test_a_recorded_evaluation_summary_reads_and_writes_back_as_it_was(record) -> None:
    from rlgpt_tui.rl.summary import EvaluationSummary

    summary = EvaluationSummary.from_dict(record)
    assert summary.to_dict() == record  # the same keys and values (in the fields' order)
    event = ev.EvaluationDone(0, "builtin", subject="x", result=summary)
    assert ev.event_from_dict(event.to_dict()) == event


def test_a_new_summary_keeps_its_key_order_and_a_rate_names_its_null_score() -> None:
    from rlgpt_tui.rl.summary import EvaluationSummary

    decided = RECORDED_SUMMARIES[2]
    assert list(EvaluationSummary.from_dict(decided).to_dict()) == list(decided)
    assert EvaluationSummary(episodes=4).to_dict() == {"episodes": 4, "score": None}
    assert ev.IterationDone(0, "builtin", "p", 0.5, 1, 1, 0).to_dict()["evaluation"] == {}
    unscored = ev.SessionFinished(0, "builtin", "iterations used up", 0.5, 1, 0)
    assert unscored.to_dict()["run"] == {} and not unscored.run  # no run score: empty
