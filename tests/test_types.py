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
