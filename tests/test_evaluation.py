"""Evaluation costs what it must: one episode driver, stopped once its episodes decide the
question asked of it, with the episodes it used recorded. Real worlds, real code."""

from __future__ import annotations

import pytest

from rlgpt_tui.library.templates import template_code
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
from rlgpt_tui.rl.decide import AgainstBest, AgainstTarget, score_rounds
from rlgpt_tui.rl.evaluation import evaluate
from rlgpt_tui.tasks.results import result_text

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
    # seeded, measured on every run: the code collects wood in 8 of 8 games; asked about
    # 0.25, the first 4 games (one per env) end in 4 wins, which decide "at or above 0.25"
    assert full.successes == 8 and full.value == 1.0
    assert (early.measurement.successes, early.episodes) == (4, 4)
    record = early.as_dict()
    assert record["decision"] == "at or above the target 0.25"
    assert record["episodes_used"] == early.episodes < 8 and record["planned"] == 8
    assert early.samples < full.samples  # the episodes still running were not played out
    assert heard[-1] == (early.episodes, 8)
    # its value is the least the full result could be, its interval the range it could take
    wins = early.measurement.successes
    assert record["value"] == early.value == wins / 8 == 0.5
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


def test_a_score_is_decided_by_its_interval_over_whole_episodes_in_rounds() -> None:
    assert score_rounds(64) == [16, 64] and score_rounds(64, 32) == [32, 64]
    assert score_rounds(8) == [8]  # fewer planned than a round: all at once
    # no best yet: an interval below the target decides; one that straddles it does not
    assert AgainstTarget(50.5).settled(10.0, 8.0, 12.0, 16, 64).answer == "below the target 50.50"
    assert AgainstTarget(50.5).settled(49.0, 45.0, 53.0, 16, 64) is None
    # below the target and on one side of the best so far; its value is the one measured
    above = AgainstTarget(50.5, best=7.0).settled(10.0, 8.0, 12.0, 16, 64)
    assert above.answer == "below the target 50.50, above the best so far (7.00)"
    assert above.value == 10.0 and AgainstTarget(50.5, best=9.0).settled(10, 8, 12, 16, 64) is None
    # level with the best so far: 64 episodes' interval (half as wide) would still hold it,
    # so the first round's 16 are the figure; a best further off than that plays on
    level = AgainstTarget(50.5, best=9.5).settled(10.0, 8.0, 12.0, 16, 64)
    assert level.answer.startswith("below the target 50.50, level with the best so far (9.50)")
    assert level.value == 10.0 and level.episodes == 16 and level.planned == 64
    assert AgainstTarget(50.5, best=11.2).settled(10.0, 8.0, 12.0, 16, 64) is None
    assert AgainstTarget(50.5, best=10.5).settled(10.0, 8.0, 12.0, 16, 64).episodes == 16
    assert AgainstTarget(50.5, best=9.5).settled(10.0, 8.0, 12.0, 64, 64) is None  # all played
    assert AgainstTarget(11.0, best=9.5).settled(10.0, 8.0, 12.0, 16, 64) is None  # the target
    # a candidate: worse at once, better only on enough whole episodes
    assert AgainstBest(13.0, "code", 32).settled(10, 8, 12, 16, 64).answer.startswith("worse")
    assert AgainstBest(7.0, "code", 32).settled(10, 8, 12, 16, 64) is None
    assert (
        AgainstBest(7.0, "code", 32).settled(10, 8, 12, 32, 64).answer == "better than code (7.00)"
    )


def test_a_scored_evaluation_stops_after_the_round_whose_interval_decides() -> None:
    scored = RLConfig(task="crafter_score", num_envs=32, seed=1, horizon=60)
    heard = []
    result = evaluate(
        scored,
        episodes=32,
        seed=3,
        question=AgainstTarget(50.5),
        on_episodes=lambda done, total: heard.append((done, total)),
    )
    record = result.as_dict()
    # a random policy scores far below 50.5: the first round of 16 whole episodes decides
    assert record["decision"] == "below the target 50.50" and record["planned"] == 32
    assert result.episodes == record["episodes_used"] == 16 == heard[-1][0]
    # only the round's envs played: their steps are every sample (at most 60 each)
    assert result.samples == round(result.mean_length * 16) <= 16 * 60
    assert record["value"] == round(result.measurement.value, 4) == round(result.value, 4)
    assert record["ci95"] == [round(x, 4) for x in result.measurement.ci95] == record["range"]
    text = result_text(record)
    assert text.startswith("Crafter score ") and "(95% CI " in text
    assert text.endswith(", 16 of 32 episodes: below the target 50.50)")
    # a challenger of the final choice plays at most as many whole episodes as the leader
    # (``most``) in the same world; undecided there, it is that many episodes' full result
    capped = evaluate(
        scored,
        episodes=32,
        seed=3,
        question=AgainstBest(result.value, "the leader", better_after=32),
        first=16,
        most=16,
    )
    assert capped.decision is None and capped.episodes == 16
    assert capped.measurement.value == result.measurement.value  # the same 16 worlds
