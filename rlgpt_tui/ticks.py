"""Axis ticks of the app's live plot (round integers), and short sample counts (4.1k, 2.5M)."""

from __future__ import annotations


def nice_ticks(high: float, count: int = 4) -> list[int]:
    """About ``count`` round integer ticks from 0 to at least ``high``."""
    if high <= 0:
        return [0]
    raw = high / count
    magnitude = 10 ** (len(str(int(raw))) - 1) if raw >= 1 else 1
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    step = max(1, int(step))
    ticks = list(range(0, int(high) + 1, step))
    return ticks if ticks[-1] >= high else ticks + [ticks[-1] + step]


def short_number(value: int) -> str:
    """4096 -> 4.1k, 120000 -> 120k, 2500000 -> 2.5M."""
    if value >= 1_000_000:
        return f"{value / 1e6:.1f}M".replace(".0M", "M")
    if value >= 1000:
        return f"{value / 1e3:.1f}k".replace(".0k", "k")
    return str(value)
