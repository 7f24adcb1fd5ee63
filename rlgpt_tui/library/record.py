"""A skill's measured record: what its evaluations measured per task, and its calls.

The library keeps it in its storage (the sessions database), a skill
file in its ``[record]`` table (:meth:`SkillRecord.as_dict`, :meth:`SkillRecord.from_dict`);
the slow agent's prompt shows it the same way from either (:attr:`SkillRecord.prompt_text`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from rlgpt_tui.library.compose import COMPOSED_PLAN
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.skills.policy import POLICY_MARK
from rlgpt_tui.tasks.measure import Measure
from rlgpt_tui.tasks.statistics import wilson_interval

T = TypeVar("T")
CODE_ONLY = " (code only)"  # the subject of an evaluation of one coded action alone


def count_of(value: Any) -> int:
    """A count from a record: a positive int, else 0 (a file's odd value counts nothing)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def end_counts(value: Any) -> dict[str, int]:
    """A record's call end reasons with their counts (odd entries dropped)."""
    if not isinstance(value, dict):
        return {}
    return {str(k): count_of(n) for k, n in value.items() if count_of(n)}


@dataclass
class TaskRecord:
    """What a skill's evaluations measured on one task: pooled success, or scores."""

    task: str
    measure: str
    evaluations: int = 0
    successes: int = 0
    episodes: int = 0
    best: float | None = None  # the best value measured (a score, for scored tasks)

    @property
    def ci95(self) -> tuple[float, float]:
        return wilson_interval(self.successes, self.episodes)

    @property
    def text(self) -> str:
        """``collect_wood 0.91 [0.83-0.95] (2 evaluations, 128 episodes)``."""
        many = f"{self.evaluations} evaluation{'s' if self.evaluations != 1 else ''}"
        if self.measure == Measure.SUCCESS_RATE.value and self.episodes:
            low, high = self.ci95
            rate = self.successes / self.episodes
            return (
                f"{self.task} {rate:.2f} [{low:.2f}-{high:.2f}] ({many}, {self.episodes} episodes)"
            )
        if self.best is not None:
            return f"{self.task} score {self.best:.1f} (best of {many})"
        return f"{self.task}: no measure"


@dataclass
class SkillRecord:
    """A skill's measured record over every evaluation it took part in."""

    calls: int = 0
    steps: int = 0
    end_reasons: Counter = field(default_factory=Counter)
    tasks: dict[str, TaskRecord] = field(default_factory=dict)

    @property
    def evaluations(self) -> int:
        return sum(t.evaluations for t in self.tasks.values())

    def add(self, use: Use) -> None:
        """Count one use: its calls, steps and call ends, and its task's figures (the best
        value; successes and episodes where both are known)."""
        self.calls += use.calls or 0
        self.steps += use.steps or 0
        self.end_reasons.update(use.end_reasons)
        one = self.tasks.setdefault(use.task, TaskRecord(use.task, use.measure or "success_rate"))
        one.evaluations += use.evaluations
        if use.value is not None:
            one.best = use.value if one.best is None else max(one.best, use.value)
        if use.episodes and use.successes is not None:
            one.successes += use.successes
            one.episodes += use.episodes

    @property
    def success_text(self) -> str:
        return "; ".join(t.text for t in self.tasks.values()) or "not evaluated yet"

    @property
    def prompt_text(self) -> str:
        """What it measured, then its calls, as a library line of a prompt shows it."""
        return f"{self.success_text}; {self.calls:,} calls"

    @property
    def calls_text(self) -> str:
        """Its calls and their steps, e.g. "120 (3,400 steps)"; a step of a composed plan
        has its calls recorded but not their steps: "83 (steps not recorded)"."""
        if self.calls and not self.steps:
            return f"{self.calls:,} (steps not recorded)"
        return f"{self.calls:,} ({self.steps:,} steps)"

    @property
    def ends_text(self) -> str:
        return ", ".join(f"{k} {n}" for k, n in self.end_reasons.most_common()) or "-"

    def as_dict(self) -> dict[str, Any]:
        """For a skill file's ``[record]``: calls, steps, ends, and per task what it measured."""
        return {
            "calls": self.calls,
            "steps": self.steps,
            "end_reasons": dict(self.end_reasons.most_common()),
            "tasks": {
                t.task: {
                    "measure": t.measure,
                    "evaluations": t.evaluations,
                    "successes": t.successes,
                    "episodes": t.episodes,
                    "best": t.best,
                }
                for t in self.tasks.values()
            },
        }

    @classmethod
    def from_dict(cls, record: dict[str, Any]) -> SkillRecord:
        """A skill file's ``[record]`` (:meth:`as_dict`'s keys; a missing or odd value is
        left at its default)."""
        out = cls(
            calls=count_of(record.get("calls")),
            steps=count_of(record.get("steps")),
            end_reasons=Counter(end_counts(record.get("end_reasons"))),
        )
        tasks = record.get("tasks")
        for task, figures in (tasks if isinstance(tasks, dict) else {}).items():
            if not isinstance(figures, dict):
                continue
            best = figures.get("best")
            out.tasks[task] = TaskRecord(
                task,
                str(figures.get("measure") or Measure.SUCCESS_RATE.value),
                evaluations=count_of(figures.get("evaluations")),
                successes=count_of(figures.get("successes")),
                episodes=count_of(figures.get("episodes")),
                best=float(best) if isinstance(best, int | float) else None,
            )
        return out

    def _rates(self) -> list[TaskRecord]:
        """Its measured success-rate tasks."""
        return [
            t for t in self.tasks.values() if t.measure == Measure.SUCCESS_RATE.value and t.episodes
        ]

    def _rate_on(self, task: str) -> TaskRecord | None:
        return next((t for t in self._rates() if t.task == task), None)

    def proven_on(self, task: str) -> float | None:
        """The lower end of the 95% interval of the success measured on ``task`` when this
        skill served it; None when never measured there."""
        found = self._rate_on(task)
        return None if found is None else found.ci95[0]

    def failed_on(self, task: str) -> bool:
        """Whether it served ``task`` in evaluations and the task never once succeeded."""
        found = self._rate_on(task)
        return found is not None and found.successes == 0

    def proven(self, name: str) -> float:
        """How far the skill ``name`` is proven to serve: the lower end of the 95% interval
        of the success measured on the task named like it (collect_wood's on collect_wood),
        else on all its success-rate tasks pooled; 0.0 when never measured so."""
        own = self.proven_on(name)
        if own is not None:
            return own
        pool = self._rates()
        episodes = sum(t.episodes for t in pool)
        if not episodes:
            return 0.0
        return wilson_interval(sum(t.successes for t in pool), episodes)[0]


def version_to_reuse(versions: list[tuple[int, SkillRecord]], name: str) -> int:
    """Of a skill's ``versions`` (number, record), the one a session reuses: the best
    proven (:meth:`SkillRecord.proven`), the newest among equals (so the newest when none is
    proven). A later version is written when a skill failed somewhere or a session wrote its
    own; one that was never evaluated, or measured worse, must not shadow a version that
    worked (a session stopped before its first evaluation leaves unevaluated versions,
    which may crash on every call)."""
    return max(versions, key=lambda v: (v[1].proven(name), v[0]))[0]


def reused_versions(versions: Iterable[tuple[str, int, SkillRecord, T]]) -> dict[str, T]:
    """Of each name among ``versions`` (name, number, record, entry), the entry of the
    version a session reuses (:func:`version_to_reuse`), by name in first-seen order."""
    by_name: dict[str, dict[int, tuple[SkillRecord, T]]] = {}
    for name, number, record, entry in versions:
        by_name.setdefault(name, {})[number] = (record, entry)
    return {
        name: found[version_to_reuse([(n, record) for n, (record, _) in found.items()], name)][1]
        for name, found in by_name.items()
    }


def skills_for_steps(steps: Sequence[str], records: Mapping[str, SkillRecord]) -> dict[str, str]:
    """Which skill of ``records`` (name -> its reused version's record) does each of
    ``steps`` in a plan composed from a library: the skill named like the step; where there
    is none, the skill best proven on the task of that name (:meth:`SkillRecord.proven_on`)
    among those named like no step (a step's own skill that served the task beside others,
    collect_coal on make_iron_pickaxe, does not do it); never one that served the task
    and saw it fail in every episode. Steps no skill fits are left out. A session names its
    skill as it likes (go_to_water for collect_drink): a plan by names alone would leave
    such steps out, and keep a skill named like a step that never once did it."""
    chosen: dict[str, str] = {}
    for step in steps:
        fits = [name for name, record in records.items() if may_do(step, name, record, steps)]
        if fits:
            chosen[step] = max(
                fits, key=lambda name: (name == step, records[name].proven_on(step) or 0.0)
            )
    return chosen


def may_do(step: str, name: str, record: SkillRecord, steps: Collection[str]) -> bool:
    """Whether the skill ``name`` (with ``record``) may do ``step`` of a plan of ``steps``:
    it is named like the step, or named like none of them and measured on the task of the
    step's name; and it never served that task only to see it fail in every episode."""
    named = name == step or (name not in steps and record.proven_on(step) is not None)
    return named and not record.failed_on(step)


# -- what an evaluation or an imported record adds to a skill's record -----------------------
@dataclass(frozen=True)
class Use:
    """One use of a skill: the figures of the task it served (one evaluation's, or an
    imported record's pooled ones) and its calls, steps and call ends."""

    task: str
    measure: str
    value: float | None
    episodes: int | None
    successes: int | None
    evaluations: int = 1
    ci95: tuple[float | None, float | None] = (None, None)
    calls: int | None = None
    steps: int | None = None
    end_reasons: dict[str, int] = field(default_factory=dict)


def evaluation_uses(
    subject: str, result: EvaluationSummary, task: str, plan_steps: Callable[[], list[str]]
) -> dict[str, Use]:
    """The skills that took part in an evaluation of ``subject`` serving ``task``, each with
    its use: an RL policy's coded actions (with the calls of the training before it), a
    composed plan's coded steps (``plan_steps``: the calls that began each), or the one
    coded action run alone. Empty when none took part."""
    usage: dict[str, Mapping[str, Any]] = {}
    ran: Mapping[str, Any] = result.coded_calls if isinstance(result.coded_calls, dict) else {}
    if isinstance(result.coded_actions, dict):
        usage = {n: s for n, s in result.coded_actions.items() if isinstance(s, dict)}
    elif subject == COMPOSED_PLAN + CODE_ONLY:  # the plan's coded steps, in turn
        begun = (ran.get(COMPOSED_PLAN) or {}).get("begun") or {}
        usage = {name: {"calls": begun.get(name)} for name in plan_steps()}
    elif subject.endswith(CODE_ONLY):
        name = subject.removesuffix(CODE_ONLY)
        usage = {name: ran.get(name) or {}}
    if not usage:
        return {}
    episodes = result.episodes
    successes = None
    if episodes and result.success_rate is not None:
        successes = round(result.success_rate * episodes)
    low, high = result.ci95 or (None, None)
    return {
        name: Use(
            task=task,
            measure=result.measured_in.value,
            value=result.measured_value,
            episodes=episodes,
            successes=successes,
            ci95=(low, high),
            calls=stats.get("calls"),
            steps=stats.get("steps"),
            end_reasons=stats.get("end_reasons") or {},
        )
        for name, stats in usage.items()
    }


def policy_calls(subject: str, result: EvaluationSummary) -> dict[tuple[str, str], int]:
    """The calls that ran a policy skill in the evaluation of ``subject``, counted where
    :func:`evaluation_uses` counts the coded actions' (an RL policy's training, or the code
    run alone): by the skill's name and the reference of the policy that ran ('' where the
    record names none), from the ``policy:<name>`` marks of the calls."""
    ran: Mapping[str, Any] = result.coded_calls if isinstance(result.coded_calls, dict) else {}
    stats: list[Any]
    if isinstance(result.coded_actions, dict):
        stats = list(result.coded_actions.values())
    elif subject.endswith(CODE_ONLY):
        stats = [ran.get(subject.removesuffix(CODE_ONLY))]
    else:
        return {}
    counted: Counter = Counter()
    for one in stats:
        if not isinstance(one, dict):
            continue
        begun, refs = one.get("begun") or {}, one.get("policies") or {}
        for mark, calls in begun.items() if isinstance(begun, dict) else ():
            if isinstance(mark, str) and mark.startswith(POLICY_MARK) and count_of(calls):
                name = mark.removeprefix(POLICY_MARK)
                ref = refs.get(name) if isinstance(refs, dict) else None
                counted[(name, ref if isinstance(ref, str) else "")] += count_of(calls)
    return dict(counted)


def imported_uses(record: Mapping[str, Any]) -> list[Use]:
    """An imported skill's record (a skill file's ``[record]``) as uses: one per task (its
    pooled figures), the calls, steps and call ends on the first; odd values count nothing."""
    recorded = record.get("tasks")
    tasks: Mapping[str, Any] = recorded if isinstance(recorded, dict) else {}
    items = list(tasks.items())
    if not items and record.get("calls"):
        items = [("", {"evaluations": 0})]
    uses = []
    for i, (task, figures) in enumerate(items):
        figures = figures if isinstance(figures, dict) else {}
        first = i == 0
        best = figures.get("best")
        uses.append(
            Use(
                task=str(task),
                measure=str(figures.get("measure", Measure.SUCCESS_RATE.value)),
                value=float(best) if isinstance(best, int | float) else None,
                episodes=count_of(figures.get("episodes")) or None,
                successes=count_of(figures.get("successes")),
                evaluations=count_of(figures.get("evaluations")),
                calls=count_of(record.get("calls")) if first else 0,
                steps=count_of(record.get("steps")) if first else 0,
                end_reasons=end_counts(record.get("end_reasons")) if first else {},
            )
        )
    return uses
