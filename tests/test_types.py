"""Typed ends, edits, worlds and worker messages: what replaced parsed strings and switches."""

from __future__ import annotations

import json

import pytest

from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.ends import EndKind, RunEnd
from rlgpt_tui.engine.resume import finished, run_end
from rlgpt_tui.envs import WORLDS, UnknownWorldError, world_info
from rlgpt_tui.rl.config import RLConfig
from rlgpt_tui.sandbox.protocol import Loaded, ProtocolError, RewardValues, Stepped


def _finished(reason: str, end: str = "") -> dict:
    event = ev.SessionFinished(
        iteration=0, agent="builtin", reason=reason, best=0.0, total_samples=0, tokens=0
    )
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
    event = ev.EvaluationDone(iteration=0, agent="builtin", subject="x", result=summary)
    assert ev.event_from_dict(event.to_dict()) == event


def test_a_new_summary_keeps_its_key_order_and_a_rate_names_its_null_score() -> None:
    from rlgpt_tui.rl.summary import EvaluationSummary

    decided = RECORDED_SUMMARIES[2]
    assert list(EvaluationSummary.from_dict(decided).to_dict()) == list(decided)
    assert EvaluationSummary(episodes=4).to_dict() == {"episodes": 4, "score": None}
    assert (
        ev.IterationDone(
            iteration=0, agent="builtin", plan="p", value=0.5, samples=1, total_samples=1, tokens=0
        ).to_dict()["evaluation"]
        == {}
    )
    unscored = ev.SessionFinished(
        iteration=0,
        agent="builtin",
        reason="iterations used up",
        best=0.5,
        total_samples=1,
        tokens=0,
    )
    assert unscored.to_dict()["run"] == {} and not unscored.run  # no run score: empty


# -- the payloads of plans, training progress and the final choice --------------------------
#: training metrics as sessions recorded them: the first format, the measure's, and today's
RECORDED_METRICS = [
    {
        "samples": 512,
        "elapsed": 1.5,
        "fps": 341.3,
        "episodes": 6,
        "ep_return_mean": 0.5,
        "ep_length_mean": 30.0,
        "success_rate": 0.5,
        "coded_decision_share": 0.0,
        "coded_sample_share": 0.0,
        "coded_actions": {},
    },
    {
        "samples": 1024,
        "elapsed": 2.0,
        "fps": 512.0,
        "episodes": 0,
        "ep_return_mean": None,
        "ep_length_mean": None,
        "success_rate": None,
        "score": None,
        "measure": "crafter_score",
        "value": None,
        "coded_decision_share": 0.8228,
        "coded_sample_share": 0.9875,
        "coded_actions": {"play": {"calls": 37, "end_reasons": {"returned": 33}, "steps": 496}},
    },
    {
        "samples": 484,
        "elapsed": 0.9,
        "fps": 537.8,
        "episodes": 137,
        "ep_return_mean": 1.0,
        "ep_length_mean": 3.62,
        "success_rate": 1.0,
        "score": None,
        "measure": "success_rate",
        "value": 1.0,
        "coded_decision_share": 0.5703,
        "coded_sample_share": 0.7727,
        "coded_actions": {"go_to_tree": {"calls": 10, "steps": 14}},
        "setup_seconds": 3.2,
        "checkpoint_seconds": 0.1,
        "resumed_from": 0,
    },
]


@pytest.mark.parametrize("record", RECORDED_METRICS)
def test_recorded_training_metrics_read_and_write_back_as_they_were(record) -> None:
    from rlgpt_tui.rl.progress import TrainingMetrics

    metrics = TrainingMetrics.from_dict(record)
    assert json.dumps(metrics.to_dict()) == json.dumps(record)  # keys, order and values
    event = ev.TrainingProgress(
        iteration=0, agent="builtin", subaction="collect_wood", metrics=metrics, total_samples=7
    )
    assert ev.event_from_dict(json.loads(json.dumps(event.to_dict()))) == event
    # a record older than the measure: its success rate is the measure
    assert metrics.measured_value == record.get("value", record["success_rate"])


def test_a_scored_iterations_training_episodes_round_trip_and_none_is_recorded_empty() -> None:
    from rlgpt_tui.rl.progress import TrainingEpisodes

    training = {"episodes": 3, "score": 4.2, "achievements": [1, 0, 5], "ends": {"horizon": 3}}
    done = ev.IterationDone(
        iteration=0,
        agent="builtin",
        plan="p",
        value=4.2,
        samples=1,
        total_samples=1,
        tokens=0,
        measure="crafter_score",
    )
    done.training = TrainingEpisodes.from_dict(training)
    assert done.to_dict()["training"] == training
    assert ev.event_from_dict(done.to_dict()) == done
    unscored = ev.IterationDone(
        iteration=0, agent="builtin", plan="p", value=0.5, samples=1, total_samples=1, tokens=0
    )
    assert unscored.to_dict()["training"] == {}  # as recorded before it was typed
    assert ev.event_from_dict(unscored.to_dict()).training is None


#: a chosen solution's records: the first (no only_coded, target or reached), the one with
#: only_coded, and a decided one with its coded actions' calls (today's)
RECORDED_RESULTS = [
    {
        "measure": "success_rate",
        "value": 0.9,
        "ci95": [0.8, 0.95],
        "episodes": 64,
        "success_rate": 0.9,
        "score": None,
        "achievement_rates": {},
        "episode_ends": {"success": 58, "horizon": 6},
        "kind": "RL",
        "iteration": 1,
        "subject": "RL policy (RL, iteration 2)",
        "stop_value": 0.875,
        "seed": 30_000,
    },
    {
        "measure": "success_rate",
        "value": 1.0,
        "ci95": [0.94, 1.0],
        "episodes": 64,
        "success_rate": 1.0,
        "score": None,
        "achievement_rates": {"collect_wood": 1.0},
        "episode_ends": {"success": 64},
        "kind": "code",
        "iteration": 0,
        "only_coded": "collect_wood",
        "subject": "collect_wood (code, iteration 1)",
        "stop_value": None,
        "seed": 30_001,
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
        "decision": "below the target 20.0",
        "episodes_used": 16,
        "planned": 32,
        "range": [10.0, 15.0],
        "kind": "code",
        "iteration": 0,
        "only_coded": "plan",
        "subject": "plan (code, iteration 1)",
        "stop_value": 11.0,
        "seed": 30_000,
        "target": 20.0,
        "reached": False,
        "coded_calls": {"plan": {"calls": 60, "begun": {"collect_wood": 60}}},
    },
]

RECORDED_CANDIDATES = [
    {
        "kind": "code",
        "iteration": 0,
        "subject": "collect_wood (code, iteration 1)",
        "stop_value": 1.0,
        "value": 1.0,
        "ci95": [0.6756, 1.0],
        "episodes": 8,
    },
    {
        "kind": "RL + code",
        "iteration": 1,
        "subject": "RL policy (RL + code, iteration 2)",
        "stop_value": None,
        "value": 0.25,
        "ci95": [0.0, 0.5],
        "episodes": 4,
        "decision": "below the best 1.00 (collect_wood)",
        "episodes_used": 4,
        "planned": 8,
        "range": [0.0, 0.5],
    },
]


@pytest.mark.parametrize("record", RECORDED_RESULTS)
def test_a_recorded_final_choice_reads_and_writes_back_as_it_was(record) -> None:
    from rlgpt_tui.engine.chosen import ChosenSolution, MeasuredCandidate

    result = ChosenSolution.from_dict(record)
    assert json.dumps(result.to_dict()) == json.dumps(record)
    assert result.value == record["value"] and result.only_coded == record.get("only_coded")
    chosen = ev.SolutionChosen(
        iteration=1,
        agent="builtin",
        candidates=[MeasuredCandidate.from_dict(c) for c in RECORDED_CANDIDATES],
        result=result,
    )
    data = chosen.to_dict()
    assert json.dumps(data["candidates"]) == json.dumps(RECORDED_CANDIDATES)
    assert ev.event_from_dict(json.loads(json.dumps(data))) == chosen
    finished = ev.SessionFinished(
        iteration=1,
        agent="builtin",
        reason="target reached",
        best=0.9,
        total_samples=10,
        tokens=0,
        result=result,
    )
    assert ev.event_from_dict(finished.to_dict()).result == result


def test_a_session_finished_without_a_choice_records_an_empty_result() -> None:
    old = _finished("iterations used up")
    old.pop("result")  # recorded before the final choice
    assert ev.event_from_dict(old).result is None
    event = ev.SessionFinished(
        iteration=0, agent="builtin", reason="stopped", best=0.0, total_samples=0, tokens=0
    )
    assert event.to_dict()["result"] == {} and ev.event_from_dict(event.to_dict()) == event


def test_the_final_choice_records_the_keys_and_values_it_always_did() -> None:
    """:class:`FinalChoice`'s records, byte for byte as its dicts were before they were
    typed (the measurement, a decision, the candidate, its calls)."""
    from rlgpt_tui.engine.choice import Candidate, FinalChoice
    from rlgpt_tui.rl.decide import Decision
    from rlgpt_tui.rl.eval_result import EvalResult
    from rlgpt_tui.tasks.measure import Measure
    from rlgpt_tui.tasks.results import Measurement

    config = RLConfig(task="collect_wood")
    code = Candidate(config, 0, 1.0, only_coded="collect_wood")
    policy = Candidate(config, 1, None, weights="policy.npz")
    measured = Measurement(Measure.SUCCESS_RATE, 0.96875, (0.84, 0.99), 32, 31, {}, {"x": 1})
    calls = {"collect_wood": {"calls": 32, "steps": 90}}
    fresh = EvalResult(measured, 12.5, 1.0, 400, calls=calls)
    decided = Decision("below the best 0.97 (collect_wood)", 9, 32, 0.0, 0.28125, False)
    lost = EvalResult(measured, 5.0, 0.0, 90, decision=decided)
    final = FinalChoice(code, fresh, [(code, fresh), (policy, lost)], 32, 30_000, 0.9)
    expected = measured.as_dict() | {
        "kind": "code",
        "iteration": 0,
        "only_coded": "collect_wood",
        "subject": code.subject,
        "stop_value": 1.0,
        "seed": 30_000,
        "target": 0.9,
        "reached": True,
        "coded_calls": calls,
    }
    assert json.dumps(final.solution().to_dict()) == json.dumps(expected)
    candidates = [
        {
            "kind": c.kind,
            "iteration": c.iteration,
            "subject": c.subject,
            "stop_value": c.value,
            "value": round(r.value, 4),
            "ci95": [round(r.ci_low, 4), round(r.ci_high, 4)],
            "episodes": r.episodes,
        }
        | (r.decision.as_dict() if r.decision else {})
        for c, r in final.measured
    ]
    recorded = [c.to_dict() for c in final.measured_candidates()]
    assert json.dumps(recorded) == json.dumps(candidates) and "decision" in recorded[1]
    offered = policy.record().to_dict()
    assert list(offered) == [
        "subject", "kind", "value", "only_coded", "deterministic", "rl_config", "weights"
    ]  # fmt: skip
    event = ev.CandidateOffered(iteration=1, agent="builtin", candidate=policy.record())
    assert ev.event_from_dict(json.loads(json.dumps(event.to_dict()))) == event


def test_an_old_plan_beyond_todays_limits_still_loads_replays_and_resumes() -> None:
    """Plans are recorded as they were checked then: a plan an older version allowed (two
    learned sub-actions, a long name) loads unchecked, writes back as it was, and resumes."""
    from rlgpt_tui.agents.schemas import Plan
    from rlgpt_tui.engine.resume import ResumeState

    sub = {"description": "d", "mode": "rl", "reason": "", "high_level_actions": []}
    recorded = {
        "subactions": [sub | {"name": "learn_" + "x" * 80}, sub | {"name": "another_learner"}],
        "notes": "",
    }
    with pytest.raises(ValueError):
        Plan.model_validate(recorded)  # today's limits refuse it
    record = ev.PlanProposed(iteration=0, agent="builtin", plan=Plan.recorded(recorded)).to_dict()
    event = ev.event_from_dict(record)
    assert isinstance(event, ev.PlanProposed) and event.plan.model_dump() == recorded
    assert json.dumps(event.to_dict()) == json.dumps(record)
    assert [s.name for s in event.plan.learned()][1] == "another_learner"
    state = ResumeState.from_events([record])  # the unfinished iteration keeps its plan
    assert state.plan is not None and state.plan.model_dump() == recorded
    # a plan the engine emits is a copy: later changes never reach the event
    plan = Plan.model_validate(recorded | {"subactions": recorded["subactions"][1:]})
    proposed = ev.PlanProposed(iteration=0, agent="builtin", plan=plan.snapshot())
    plan.subactions[0].mode = "code"
    assert proposed.plan.subactions[0].mode == "rl" and type(proposed.plan) is Plan
