"""The measured figure's last word over a critic.

A verdict that contradicts the measured outcome it was given is overruled by the figure
(:func:`overrule_rl`, :func:`overrule_code`: a pass for code whose every run failed, a fail
whose reason denies what every run gained); the recorded reason says so and quotes the
critic. Runs that show a step done pass it without asking the critic
(:func:`passed_by_runs`); with no verdict at all, runs that each gained what the step is
named for pass it (:func:`measured_verdict`).
"""

from __future__ import annotations

import re

from rlgpt_tui.agents.grounding import normalized, thing_names, with_parts
from rlgpt_tui.agents.runs import Execution, added_by, did_step, lacked, needs_text
from rlgpt_tui.agents.schemas import SubAction, Verdict
from rlgpt_tui.envs.base import ACHIEVEMENTS
from rlgpt_tui.envs.knowledge import Step


def overrule_rl(
    verdict: Verdict,
    value: float,
    target: float,
    label: str,
    rates: dict[str, float] | None = None,
) -> Verdict:
    """The measured figure decides an RL verdict: success iff ``value`` reaches ``target``;
    a verdict saying otherwise is overruled, the critic quoted. So is a reason that denies
    what the evaluation's achievement ``rates`` show ("did not collect any coal" beside
    collect_coal in 69% of the episodes)."""
    measured = value >= target
    shown = {  # each thing an achievement with episodes names, by its highest rate
        thing: (name, rate)
        for name, rate in sorted((rates or {}).items(), key=lambda kv: kv[1])
        if rate > 0
        for thing in with_parts([name]) & thing_names()
    }
    denied = sorted(denied_in(verdict.reason, set(shown)))
    if verdict.success == measured and not denied:
        return verdict
    said = "pass" if verdict.success else "fail"
    relation = "reaches" if measured else "is below"
    why = f"the measured figure: {label} {value:.2f} {relation} the target {target:.2f}"
    if denied:
        seen = sorted({shown[thing] for thing in denied})
        why = (
            "the evaluation: "
            + ", ".join(f"{name} in {rate:.0%} of its episodes" for name, rate in seen)
            + f", which the critic's reason denies; {why}"
        )
    return Verdict(
        success=measured,
        reason=f"overruled by {why} (the critic said {said}: {verdict.reason})"[:2000],
        suggestion=verdict.suggestion,
    )


#: words that make a clause deny what it names ("did not collect any wood")
_DENIAL = frozenset(
    {"not", "no", "never", "without", "nothing", "none", "didn", "didnt", "cannot", "failed"}
)
#: words that make a denial one of amount ("not enough wood", "only one wood"), which runs
#: that each gained some can still deserve
_AMOUNT = frozenset(
    {"enough", "only", "more", "fewer", "less", "all", "both", "twice", "another", "again"}
)


def gained_in_every_run(runs: list[Execution]) -> set[str]:
    """The thing names every run gained: items that grew and what each new achievement
    names (``collect_wood``: wood)."""
    each = [with_parts([*items, *new]) & thing_names() for items, new in map(added_by, runs)]
    return set.intersection(*each) if each else set()


def denied_gains(reason: str, runs: list[Execution]) -> set[str]:
    """What ``reason`` says was not gained although every run gained it."""
    return denied_in(reason, gained_in_every_run(runs))


def denied_in(reason: str, things: set[str]) -> set[str]:
    """Which of ``things`` ``reason`` denies (a clause with a denial, not about an
    amount: "did not collect any wood", not "not enough wood")."""
    denied: set[str] = set()
    for clause in re.split(r"[.,;:!?]|\bbut\b", reason.lower()):
        words = set(normalized(clause).split())
        if words & _DENIAL and not words & _AMOUNT and not any(w.isdigit() for w in words):
            denied |= words & things
    return denied


def measured_verdict(sub: SubAction, runs: list[Execution], why: str) -> Verdict:
    """The verdict when the critic gave none (``why``): a pass where every run gained a
    thing the step's name names (``collect_wood``: wood), else a fail saying so."""
    named = with_parts([sub.name]) & thing_names() & gained_in_every_run(runs)
    if runs and named:
        n = len(runs)
        return Verdict(
            success=True,
            reason=(
                f"passed by the runs: every run gained {', '.join(sorted(named))} "
                f"({n} of {n}), which {sub.name} is named for (the critic gave no verdict: "
                f"{why})"
            )[:2000],
        )
    return Verdict(success=False, reason=f"no verdict: the critic's answer failed ({why})")


#: the share of a step's runs that must unlock its achievement to pass it without a critic
UNLOCKED_SHARE = 0.75


def passed_by_runs(runs: list[Execution], name: str, step: Step | None = None) -> Verdict | None:
    """A pass, without asking the critic, for a step its runs show done (None otherwise): a
    step ``name`` whose runs unlocked the achievement it is named for (place_table, eat_cow),
    in at least :data:`UNLOCKED_SHARE` of them (it makes one item a call), or a step
    ``collect_X`` whose every run gained X. A small critic fails such steps too, and each
    fail that stands costs a critic's answer and rewrites working code.

    With the world's ``step`` (its recipe), a run that started without what the step uses
    and did not do it does not count, if the rest are more than half: a run whose earlier
    steps left no pickaxe says nothing of a collect_stone step."""
    if not runs:
        return None
    n = len(runs)
    kind, _, item = name.partition("_")

    def excused(run: Execution) -> bool:  # it started short of what the step uses, and failed
        return step is not None and bool(lacked(run, step)) and not did_step(run, name)

    ready = [run for run in runs if not excused(run)]
    if 2 * len(ready) <= n:
        return None
    k = len(ready)
    needs = needs_text(step) if step else ""
    left_out = (
        f"; {n - k} of {n} runs started without {needs} and did not do it: they do not count"
        if k < n
        else ""
    )
    if kind == "collect" and item in gained_in_every_run(ready):
        which = "every run" if k == n else "every run that counts"
        return Verdict(
            success=True,
            reason=f"passed by the runs: {which} gained {item} ({k} of {k}), which {name} "
            f"is named for{left_out} (the critic was not asked)",
        )
    if name not in ACHIEVEMENTS:
        return None
    unlocked = sum(name in added_by(run)[1] for run in ready)
    if unlocked < UNLOCKED_SHARE * k:
        return None
    return Verdict(
        success=True,
        reason=f"passed by the runs: {unlocked} of {k} runs unlocked {name}, the achievement "
        f"this step is named for{left_out} (the critic was not asked)",
    )


def overrule_code(verdict: Verdict, runs: list[Execution]) -> Verdict:
    """A code verdict that the runs contradict is overruled: a pass when every run failed
    (an error, a timeout, ...: code that never ran to an end does not pass), and a fail whose
    reason denies what every run gained ("did not collect any wood" beside wood +1 in each
    run)."""
    if not runs:
        return verdict
    n = len(runs)
    denied = set() if verdict.success else denied_gains(verdict.reason, runs)
    if denied:
        return Verdict(
            success=True,
            reason=(
                f"overruled by the runs: every run gained {', '.join(sorted(denied))} "
                f"({n} of {n}), which the critic's reason denies (the critic said fail: "
                f"{verdict.reason})"
            )[:2000],
            suggestion=verdict.suggestion,
        )
    if not verdict.success or not all(r.end.failure for r in runs):
        return verdict
    ends = ", ".join(sorted({r.end.value for r in runs}))
    return Verdict(
        success=False,
        reason=(
            f"overruled by the runs: every run failed ({ends}) (the critic said pass: "
            f"{verdict.reason})"
        )[:2000],
        suggestion=verdict.suggestion,
    )
