"""The honest final choice of a run's solution.

During a run every decision (stop at the target, keep or revise the plan) reads the
iterations' own evaluations, so the best of them is optimistic: it was chosen because it
was high. When the run stops, its candidates (code alone, RL + code, pure RL: the best of
each kind by the run's own evaluations) are evaluated again on fresh worlds that no
decision used, with at least :data:`MIN_EPISODES` episodes (unless a person chose fewer),
and the best fresh figure is the run's result. The most promising candidate (by the run's
own figures) is measured first and in full; each later one stops as soon as its episodes
show it cannot beat the best one measured in full (its record says after how many episodes).
A scored task's candidates play in rounds of whole episodes: the first one at least
:data:`MIN_EPISODES` (more only while its interval straddles the target), each later one
at most as many as the leader, stopping once its interval is below the leader's score
(after 16) or above it (after 32).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlgpt_tui.engine.chosen import CandidateRecord, ChosenSolution, MeasuredCandidate
from rlgpt_tui.rl.config import RLConfig
from rlgpt_tui.rl.decide import SCORE_FIRST, AgainstBest, AgainstTarget, Question
from rlgpt_tui.rl.environment import build_env
from rlgpt_tui.rl.eval_result import EvalResult, sampled_may_beat_mode
from rlgpt_tui.rl.evaluation import evaluate
from rlgpt_tui.rl.progress import TrainingMetrics
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.rl.weights import load_policy
from rlgpt_tui.tasks.catalog import Task

#: evaluation worlds of an iteration's solutions: this + the run's seed + the iteration
ITERATION_SEED = 10_000
#: evaluation worlds of the final choice: seeds no iteration, critic or training run uses
FRESH_SEED = 30_000
#: episodes per candidate: 64 for a success rate, 32 full episodes for a score
MIN_EPISODES = {False: 64, True: 32}

CODE, RL_CODE, RL = "code", "RL + code", "RL"


@dataclass
class Candidate:
    """A solution the run produced: a policy over ``config``'s actions, or one of its coded
    actions run alone (``only_coded``), with the value the run's own evaluation gave it
    (``None``: not evaluated alone during the run, e.g. the code an RL policy started from).
    A policy rebuilt from a recorded run has no ``model`` but its ``weights`` file
    (:mod:`rlgpt_tui.rl.weights`), loaded when it is evaluated."""

    config: RLConfig
    iteration: int
    value: float | None
    model: Any = None  # a stable-baselines3 PPO, or None for code alone
    only_coded: str | None = None
    deterministic: bool | None = None  # how the policy acts (None: evaluate()'s default)
    weights: str | None = None  # the policy's .npz beside its checkpoint, where one was kept

    @property
    def kind(self) -> str:
        if self.model is None and self.weights is None:
            return CODE
        return RL_CODE if self.config.coded_actions else RL

    @property
    def subject(self) -> str:
        what = str(self.only_coded) if self.kind == CODE else "RL policy"
        if self.deterministic is False:
            what += ", sampled"
        return f"{what} ({self.kind}, iteration {self.iteration + 1})"

    def evaluate(
        self,
        episodes: int,
        seed: int,
        on_episodes: Callable[[int, int], None] | None = None,
        question: Question | None = None,
        first: int = SCORE_FIRST,
        most: int | None = None,
    ) -> EvalResult:
        """This candidate on ``episodes`` worlds from ``seed``, one episode each (stopped
        early once its episodes answer ``question``; scored: rounds from ``first``, up to
        ``most``). A policy known by its ``weights`` file is loaded (and kept) in a world
        of ``episodes`` envs and plays there."""
        env = None
        if self.model is None and self.weights is not None:
            env = build_env(self.config, num_envs=episodes, seed=seed)
            try:
                self.model = load_policy(self.config, env, Path(self.weights).read_bytes())
            except BaseException:
                env.close()
                raise
        try:
            return evaluate(
                self.config,
                self.model,
                only_coded=self.only_coded,
                episodes=episodes,
                seed=seed,
                deterministic=self.deterministic,
                on_episodes=on_episodes,
                question=question,
                env=env,
                first=first,
                most=most,
            )
        finally:
            if env is not None:
                env.close()

    def record(self) -> CandidateRecord:
        """What a ``CandidateOffered`` event keeps of it, to rebuild it on a resume."""
        return CandidateRecord(
            subject=self.subject,
            kind=self.kind,
            value=self.value,
            only_coded=self.only_coded,
            deterministic=self.deterministic,
            rl_config=self.config.model_dump(mode="json", exclude={"checkpoint_dir"}),
            weights=self.weights,
        )

    @classmethod
    def recorded(cls, iteration: int, record: CandidateRecord) -> Candidate | None:
        """The candidate a ``CandidateOffered`` event recorded (None: a policy whose
        weights were not kept or are gone, which cannot be measured again)."""
        weights = record.weights
        if record.kind != CODE and not (weights and Path(weights).is_file()):
            return None
        return cls(
            RLConfig.model_validate(record.rl_config),
            iteration,
            record.value,
            only_coded=record.only_coded,
            deterministic=record.deterministic,
            weights=weights if record.kind != CODE else None,
        )


@dataclass(frozen=True)
class HowItActs:
    """How a policy that started from code acts (:func:`mode_or_sampled`)."""

    kept: EvalResult  # the evaluation kept: its mode's, or sampled's where that is higher
    deterministic: bool | None  # evaluate()'s ``deterministic``: False sampled, None its mode
    in_training: float | None = None  # its training figure, where that beat the mode's
    sampled: EvalResult | None = None  # sampled's evaluation, where it was measured


def mode_or_sampled(
    config: RLConfig,
    history: list[TrainingMetrics],
    mode: EvalResult,
    sampled: Callable[[], EvalResult],
) -> HowItActs:
    """The engine's choice between a policy's mode and its sampled actions: by its mode
    (the code it started from, until PPO learned better), unless it did better in training
    than its mode measured (:func:`~rlgpt_tui.rl.eval_result.sampled_may_beat_mode`) and
    ``sampled()`` (the policy evaluated sampled, on the mode's worlds) measures higher."""
    in_training = sampled_may_beat_mode(config, history, mode)
    if in_training is None:
        return HowItActs(mode, None)
    measured = sampled()
    if measured.value <= mode.value:
        return HowItActs(mode, None, in_training, measured)
    return HowItActs(measured, False, in_training, measured)


@dataclass
class Candidates:
    """The best candidate of each kind so far, by the run's own evaluations."""

    best: dict[str, Candidate] = field(default_factory=dict)

    def offer(self, candidate: Candidate) -> None:
        """Keep ``candidate`` if its kind has none yet, or it measured higher; an unmeasured
        one never replaces a measured one."""
        held = self.best.get(candidate.kind)
        if held is None or (
            candidate.value is not None and (held.value is None or candidate.value > held.value)
        ):
            self.best[candidate.kind] = candidate

    def __len__(self) -> int:
        return len(self.best)

    def __iter__(self):
        return iter(self.best.values())


@dataclass
class FinalChoice:
    """Every candidate's fresh evaluation and the one kept."""

    chosen: Candidate
    fresh: EvalResult
    measured: list[tuple[Candidate, EvalResult]]
    episodes: int
    seed: int
    target: float

    @property
    def reached(self) -> bool:
        """Is the fresh figure at the target (the only figure that may say so)?"""
        return self.fresh.value >= self.target

    def solution(self) -> ChosenSolution:
        """The chosen candidate's fresh measurement (and, a score's, the question its
        rounds answered, and its coded actions' calls there), with which candidate it is."""
        decided = self.fresh.decision.as_dict() if self.fresh.decision else {}
        evaluation = EvaluationSummary.from_dict(self.fresh.measurement.as_dict() | decided)
        evaluation.coded_calls = self.fresh.calls or None
        return ChosenSolution(
            evaluation=evaluation,
            kind=self.chosen.kind,
            iteration=self.chosen.iteration,
            only_coded=self.chosen.only_coded,
            subject=self.chosen.subject,
            stop_value=self.chosen.value,
            seed=self.seed,
            target=self.target,
            reached=self.reached,
        )

    def measured_candidates(self) -> list[MeasuredCandidate]:
        """Every candidate's fresh evaluation, in the order they were measured."""
        return [_measured(candidate, result) for candidate, result in self.measured]


def _measured(candidate: Candidate, result: EvalResult) -> MeasuredCandidate:
    """A candidate's fresh evaluation as the final choice records it (a decided one's
    figures as :meth:`~rlgpt_tui.rl.decide.Decision.as_dict` has them)."""
    decided = result.decision
    return MeasuredCandidate(
        kind=candidate.kind,
        iteration=candidate.iteration,
        subject=candidate.subject,
        stop_value=candidate.value,
        value=round(result.value, 4),
        ci95=(round(result.ci_low, 4), round(result.ci_high, 4)),
        episodes=result.episodes,
        decision=decided.answer if decided else None,
        episodes_used=decided.episodes if decided else None,
        planned=decided.planned if decided else None,
        range=(round(decided.low, 4), round(decided.high, 4)) if decided else None,
    )


def fresh_episodes(task: Task, requested: int, chosen: int | None = None) -> int:
    """Episodes per candidate: ``chosen`` where a person set it, else the run's evaluation
    size and at least :data:`MIN_EPISODES`."""
    if chosen is not None:
        return chosen
    return max(requested, MIN_EPISODES[task.scored])


def choose(
    candidates: Candidates,
    task: Task,
    episodes: int,
    seed: int,
    target: float,
    on_candidate: Callable[[Candidate], Callable[[int, int], None] | None] | None = None,
) -> FinalChoice | None:
    """Evaluate every candidate on the same fresh worlds and keep the best (ties: the one
    the run measured higher, then code before RL, the cheaper solution). ``on_candidate``
    hears of each candidate before it is evaluated and may return an episode-progress
    callback for it."""
    if not len(candidates):
        return None
    order = {CODE: 0, RL_CODE: 1, RL: 2}
    measured: list[tuple[Candidate, EvalResult]] = []
    whole = min(MIN_EPISODES[True], episodes)  # a scored leader's least whole episodes
    leader: tuple[Candidate, EvalResult] | None = None
    # the most promising first (by the run's own figures): the others can then stop as soon
    # as they cannot beat it
    for c in sorted(candidates, key=lambda c: float("inf") if c.value is None else -c.value):
        progress = on_candidate(c) if on_candidate else None
        planned = None
        question: Question | None
        if leader is None:  # measured in full (a score: while its interval may reach the target)
            question, first = (AgainstTarget(target) if task.scored else None), whole
        else:  # later ones stop once they lose (a score: or win, on enough episodes)
            better = whole if task.scored else None
            question = AgainstBest(leader[1].value, leader[0].subject, better)
            first = SCORE_FIRST
            if task.scored:  # compared on as many whole episodes as the leader, at most
                planned = leader[1].episodes
        result = c.evaluate(episodes, seed, progress, question, first, planned)
        measured.append((c, result))
        full = result.decision is None or (
            result.decision.estimate is not None and result.episodes >= whole
        )
        if full and (leader is None or result.value > leader[1].value):
            leader = (c, result)
    chosen, fresh = max(
        measured,
        key=lambda cr: (cr[1].value, cr[0].value or 0.0, -order[cr[0].kind]),
    )
    return FinalChoice(chosen, fresh, measured, episodes, seed, target)
