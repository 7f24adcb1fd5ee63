"""Draw the app's run screen to an SVG (Textual's export) for the README and the docs.

Usage: python scripts/screenshot.py [--out FILE.svg] [--size 160x48]
       python scripts/screenshot.py --sessions-dir DIR [--session ID] [--out FILE.svg]

By default it starts the README's main job in the app (``collect_wood``, builtin agent, no
LLM, Craftax-Classic) in a temporary sessions folder, waits until the second iteration's PPO
(with its coded actions) has drawn a few training points and the agent view shows a frame,
saves the screen as ``--out`` (default docs/images/run-screen.svg) and stops the session; a
minute or two on two cores. With ``--sessions-dir`` it replays a recorded session instead
(the newest unless ``--session`` names one; a replay has no agent-view frames).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "docs" / "images" / "run-screen.svg"


async def save_live_run(sessions_dir: Path, out: Path, size: tuple[int, int]) -> None:
    """Start the main job in the app; save the screen once its second iteration trains."""
    from rlgpt_tui.engine.settings import EngineSettings
    from rlgpt_tui.tui.app import RlgptApp
    from rlgpt_tui.tui.screens.run import RunScreen
    from rlgpt_tui.tui.widgets.agent_view import AgentView
    from rlgpt_tui.tui.widgets.training import TrainingPane

    app = RlgptApp(sessions_dir, settings=EngineSettings(task="collect_wood"))
    async with app.run_test(size=size) as pilot:
        points_before = None
        for _ in range(6000):  # ten minutes at most
            await pilot.pause(0.1)
            screens = [s for s in app.screen_stack if isinstance(s, RunScreen)]
            if not screens or not screens[-1].query(TrainingPane):
                continue
            screen = screens[-1]
            points = screen.query_one(TrainingPane).points
            second = screen.header.iteration >= 1 and screen.header.phase == "training"
            if second and points_before is None:
                points_before = points
            framed = screen.query_one(AgentView).frames_shown > 0
            if screen.ended or (second and framed and points >= (points_before or 0) + 3):
                break
        else:
            raise SystemExit("the run did not reach its second training within ten minutes")
        await pilot.pause(1.0)
        save(app, out)
        await app.action_quit()


def save(app, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    app.save_screenshot(filename=out.name, path=str(out.parent))
    print(out)


async def save_run_screen(sessions_dir: Path, session: int | None, out: Path, size) -> None:
    """Open the app, replay the session (the newest unless given), save its screen."""
    from rlgpt_tui.tui.app import RlgptApp
    from rlgpt_tui.tui.screens.run import RunScreen
    from rlgpt_tui.tui.widgets.training import TrainingPane

    app = RlgptApp(sessions_dir)
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.5)
        table = app.screen.query_one("#sessions")
        if table.row_count == 0:
            raise SystemExit(f"no session recorded in {sessions_dir}: run one first")
        if session is not None:
            rows = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
            if str(session) not in rows:
                raise SystemExit(f"no session {session} in {sessions_dir}: use one of {rows}")
            table.move_cursor(row=rows.index(str(session)))
        await pilot.press("enter")  # a finished session: a replay with every event shown
        for _ in range(300):
            screens = [s for s in app.screen_stack if isinstance(s, RunScreen)]
            if screens and screens[-1].query(TrainingPane):
                break
            await pilot.pause(0.1)
        else:
            raise SystemExit("the run screen did not open within 30 s")
        await pilot.pause(2.0)  # let the panes lay out and draw their curves
        save(app, out)


def parse_size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--size must be COLUMNSxROWS, e.g. 160x48: {text!r}"
        ) from None
    return width, height


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--sessions-dir", type=Path, default=None, help="replay a session recorded here"
    )
    parser.add_argument("--session", type=int, default=None, help="session id (default: newest)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the SVG to write")
    parser.add_argument("--size", type=parse_size, default=(160, 48), help="COLUMNSxROWS")
    args = parser.parse_args(argv)
    if args.sessions_dir is not None:
        asyncio.run(save_run_screen(args.sessions_dir, args.session, args.out, args.size))
        return
    with tempfile.TemporaryDirectory(prefix="rlgpt-screenshot-") as tmp:
        asyncio.run(save_live_run(Path(tmp), args.out, args.size))


if __name__ == "__main__":
    main()
