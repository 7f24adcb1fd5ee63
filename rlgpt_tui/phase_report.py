"""Where a session's time went, as report text: one line of totals, a table of seconds per
phase and iteration, and a stacked bar per iteration (the phases are
:mod:`rlgpt_tui.engine.phases`')."""

from __future__ import annotations

from rlgpt_tui.engine.phases import SessionPhases

#: one letter per phase in the stacked bars (LLM calls: ``L``; anything else: ``.``)
BAR_LETTERS = {
    "planning": "p",
    "coding": "c",
    "validating": "v",
    "critic runs": "r",
    "world": "W",
    "training": "T",
    "checkpointing": "k",
    "evaluating": "E",
    "critic": "j",
    "final evaluation": "F",
    "paused": " ",
}
BAR_WIDTH = 50


def _letter(phase: str) -> str:
    return "L" if phase.startswith("LLM ") else BAR_LETTERS.get(phase, ".")


def phase_totals_text(phases: SessionPhases) -> str:
    """One line: the wall time, training proper's share and rate, the biggest phases."""
    totals, wall = phases.totals, phases.wall
    rate = phases.samples_per_second
    top = sorted(
        ((k, v) for k, v in totals.items() if k not in ("training", "paused") and v >= 0.05),
        key=lambda kv: -kv[1],
    )[:4]
    others = ", ".join(f"{k} {v:.1f} s" for k, v in top)
    return (
        f"time: {wall:.1f} s of wall time, training proper {totals.get('training', 0.0):.1f} s "
        f"({phases.training_share:.0%})"
        + (f" at {rate:,.0f} samples/s" if rate else "")
        + (f"; {others}" if others else "")
        + (f"; paused {totals['paused']:.1f} s" if totals.get("paused") else "")
    )


def phase_bar(seconds: dict[str, float], scale: float, names: list[str]) -> str:
    """A stacked bar of ``seconds`` per phase, ``scale`` seconds per character."""
    bar = ""
    for name in names:
        value = seconds.get(name, 0.0)
        if name == "paused" or value <= 0 or scale <= 0:
            continue
        bar += _letter(name) * max(1, round(value / scale)) if value >= scale / 2 else ""
    return bar


def phase_table(phases: SessionPhases) -> list[str]:
    """Where the time went: seconds per phase and iteration, shares, stacked bars."""
    if not phases.iterations:
        return []
    names = phases.names()
    its = phases.iterations
    totals, wall = phases.totals, phases.wall
    lines = [
        "",
        "## Where the time went",
        "",
        "| phase | " + " | ".join(f"it. {it.iteration + 1}" for it in its) + " | total | share |",
        "|---|" + "---|" * (len(its) + 2),
    ]
    for name in names:
        cells = [f"{it.seconds.get(name, 0.0):.1f}" for it in its]
        share = "-" if name == "paused" else f"{totals[name] / wall:.0%}" if wall else "-"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {totals[name]:.1f} | {share} |")
    lines.append(
        "| **wall** | " + " | ".join(f"{it.wall:.1f}" for it in its) + f" | {wall:.1f} | 100% |"
    )
    rates = [f"{it.samples_per_second:,.0f}" if it.samples_per_second else "-" for it in its]
    rate = phases.samples_per_second
    lines.append(
        "| samples/s (training proper) | "
        + " | ".join(rates)
        + f" | {f'{rate:,.0f}' if rate else '-'} | |"
    )
    longest = max(it.wall for it in its)
    scale = longest / BAR_WIDTH if longest > 0 else 0.0
    legend = ", ".join(
        f"{_letter(n)} {n}" for n in names if n != "paused" and not n.startswith("LLM ")
    )
    if any(n.startswith("LLM ") for n in names):
        legend += ", L LLM calls"
    lines += ["", f"Seconds per phase (one character: {scale:.2f} s; {legend}):", "", "```"]
    for it in its:
        lines.append(f"it. {it.iteration + 1:>2} |{phase_bar(it.seconds, scale, names)}")
    lines.append("```")
    return lines
