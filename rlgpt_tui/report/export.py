"""Export a session's report: markdown with its learning curves and an evaluation episode's
GIF, or JSON (every record table and the event log)."""

from __future__ import annotations

import json
from pathlib import Path

from rlgpt_tui.curves import draw_learning_curves, save_curves
from rlgpt_tui.recorded import recorded_target
from rlgpt_tui.report.record import session_record
from rlgpt_tui.report.replay import evaluation_frames
from rlgpt_tui.report.session_markdown import session_markdown
from rlgpt_tui.store import SessionStore, StoreError


def export_session(
    store: SessionStore,
    session_id: int,
    fmt: str = "md",
    out: str | Path | None = None,
    with_gif: bool = True,
) -> Path:
    """Write the report (and its images for markdown); returns the report's path."""
    folder = Path(out) if out else store.session_dir(session_id) / "report"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreError(f"cannot write the report to {folder}: {error.strerror}") from None
    if fmt == "json":
        path = folder / f"session-{session_id}.json"
        path.write_text(json.dumps(session_record(store, session_id), indent=1, default=str))
        return path
    assets: dict[str, str] = {}
    summary = store.get(session_id)
    target = recorded_target(summary.settings)
    curves = draw_learning_curves(
        store.rows("training_metrics", session_id),
        store.rows("evaluations", session_id),
        store.rows("iterations", session_id),
        target=target or summary.measure.default_target,
    )
    if curves is not None:
        png, svg = save_curves(curves, folder)
        assets["learning curves"] = png.name
        assets["learning curves (SVG)"] = svg.name
    if with_gif:
        frames = evaluation_frames(store, session_id)
        if frames:
            frames[0].save(
                folder / "episode.gif",
                save_all=True,
                append_images=frames[1:],
                duration=80,
                loop=0,
            )
            assets["evaluation episode"] = "episode.gif"
    path = folder / f"session-{session_id}.md"
    path.write_text(session_markdown(store, session_id, assets))
    return path
