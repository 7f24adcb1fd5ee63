"""Evaluation costs what it must: one episode driver, stopped once its episodes decide the
question asked of it, with the episodes it used recorded. Real worlds, real code."""

from __future__ import annotations

import pytest

from rlgpt_tui.agents.builtin import template_code
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
from rlgpt_tui.rl.decide import AgainstBest, AgainstTarget
from rlgpt_tui.rl.train import evaluate
from rlgpt_tui.tasks import result_text

CODE = CodedActionSpec(name="collect_wood", source=template_code("collect_wood"))


def config() -> RLConfig:
    return RLConfig(task="collect_wood", num_envs=8, seed=1, coded_actions=[CODE], horizon=300)


def test_the_range_of_the_full_result_decides_never_the_early_episodes() -> None:
    # 8 planned: 7 successes ended -> at least 7/8 whatever the last one does
    assert AgainstTarget(0.8).decided(7, 7, 8).answer == "at or above the target 0.80"
    assert AgainstTarget(0.9).decided(7, 7, 8) is None  # 7/8 < 0.9 <= 8/8: undecided
    assert AgainstTarget(0.9).decided(0, 1, 8) is None  # below, but it may be the best
    below = AgainstTarget(0.9, best=0.9).decided(0, 1, 8)  # one failure: at most 7/8
    assert below.answer == "below the target 0.90 and the best so far (0.90)"
    assert below.episodes == 1 and AgainstTarget(0.9, best=0.8).decided(0, 1, 8) is None
    # a candidate that can no longer beat the best stops; one that still may goes on
    assert AgainstBest(0.75, "code").decided(1, 4, 8).answer == "worse than code (0.75)"
    assert AgainstBest(0.75).decided(4, 4, 8) is None


def test_an_evaluation_stops_once_its_episodes_decide_and_says_after_how_many() -> None:
    heard, every = [], []
    full = evaluate(
        config(),
        only_coded="collect_wood",
        episodes=8,
        seed=5,
        on_episodes=lambda done, total: every.append((done, total)),
    )
    assert full.decision is None and full.episodes == 8  # no question: every episode
    assert every[-1] == (8, 8)  # progress to the last episode
    early = evaluate(
        config(),
        only_coded="collect_wood",
        episodes=8,
        seed=5,
        question=AgainstTarget(0.25),
        on_episodes=lambda done, total: heard.append((done, total)),
    )
    assert full.successes >= 2  # the code collects wood: 2 of 8 decide "at or above 0.25"
    record = early.as_dict()
    assert record["decision"] == "at or above the target 0.25"
    assert record["episodes_used"] == early.episodes < 8 and record["planned"] == 8
    assert early.samples < full.samples  # the episodes still running were not played out
    assert heard[-1] == (early.episodes, 8)
    # its value is the least the full result could be, its interval the range it could take
    wins = early.measurement.successes
    assert record["value"] == early.value == wins / 8 >= 0.25
    assert record["ci95"] == record["range"] == [wins / 8, (wins + 8 - early.episodes) / 8]
    text = result_text(record)
    assert text.startswith(f"success rate between {wins / 8:.2f} and ")
    assert text.endswith(f"({early.episodes} of 8 episodes: at or above the target 0.25)")


@pytest.mark.parametrize("question", [None, AgainstTarget(1.01)])
def test_an_undecided_question_changes_nothing(question) -> None:
    # a target above 1 is never decided early: the result is the full evaluation's
    a = evaluate(config(), only_coded="collect_wood", episodes=8, seed=6)
    b = evaluate(config(), only_coded="collect_wood", episodes=8, seed=6, question=question)
    assert b.decision is None and b.as_dict() == a.as_dict()
