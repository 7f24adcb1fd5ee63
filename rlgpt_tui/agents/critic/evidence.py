"""What the critic is shown of a coded action's runs, and the things its verdict may name: a
verdict whose reason names things (blocks, creatures, items) that its evidence does not show
is invalid (:func:`evidence_check`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from rlgpt_tui.agents.grounding import Check, normalized, things_in, view_things, with_parts
from rlgpt_tui.agents.runs import Execution, changed_runs, gains
from rlgpt_tui.agents.schemas import Verdict


def runs_summary(runs: list[Execution]) -> str:
    """One line of counts over a coded action's sampled runs, measured from its Views: how
    they ended, what the player faced at the end, what was gained, health lost. A small
    model judges from these counts rather than from its reading of every map."""
    if not runs:
        return "No run to measure."

    def counted(values: Iterable[str]) -> str:
        return ", ".join(f"{k} {n}" for k, n in Counter(values).most_common())

    gained = [gain for run in runs for gain in gains(run)]
    changed = changed_runs(runs)
    hurt = sum(run.after.health < run.before.health for run in runs)
    n = len(runs)
    return (
        f"Measured over the {n} runs: ended {counted(r.end.value for r in runs)}; facing at "
        f"the end: {counted(r.after.block_at(*r.after.facing_position) for r in runs)}; "
        f"inventory or achievements changed in {changed} of {n}"
        f"{' (' + ', '.join(gained) + ')' if gained else ''}; health lost in {hurt} of {n}."
    )


def evidence_check(evidence: set[str]) -> Check:
    """A check refusing verdicts whose reason names things outside ``evidence`` (the thing
    names of the task, the sub-action and what the critic was shown)."""

    def check(verdict: Verdict) -> None:
        absent = sorted(things_in(verdict.reason) - evidence)
        if absent:
            raise ValueError(
                f"the reason names {', '.join(absent)}, which the evidence does not show: "
                "judge from the runs and figures given"
            )

    return check


def text_evidence(texts: Iterable[str]) -> set[str]:
    """Thing names ``texts`` (the task, the sub-action, figures) give a verdict to use."""
    return with_parts(set(normalized(" ".join(texts)).split()))


def code_evidence(texts: Iterable[str], runs: list[Execution]) -> set[str]:
    """Thing names a code verdict may use: those of ``texts`` and of what every run showed
    before and after."""
    evidence = text_evidence(texts)
    for run in runs:
        evidence |= view_things(run.before) | view_things(run.after)
    return evidence
