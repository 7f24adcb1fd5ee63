"""Record a learn record's frontier (``rlgpt-tui learn``) as a results file.

Each task the record tried that has a fresh figure becomes a row: the figure and its 95%
interval from the session's final choice on worlds no decision used, the samples it trained,
and its status, tries, tokens and wall time. Prints the rows as one JSON line; with
``--record NAME`` also writes ``benchmarks/results/NAME.json`` for the results page.

    python benchmarks/learn_frontier.py --sessions-dir runs/learn --record llm-learn-empty
"""

from __future__ import annotations

import argparse
import json
import sys

from rlgpt_bench import options
from rlgpt_bench.learn import GROUP, learn_command, learn_rows
from rlgpt_bench.options import add_options
from rlgpt_bench.results import RESULTS_DIR, write_run
from rlgpt_tui.curriculum.frontier import frontier
from rlgpt_tui.labels import agent_label
from rlgpt_tui.store import SessionStore


def build_parser() -> argparse.ArgumentParser:
    parser = options.parser("learn_frontier", __doc__)
    add_options(parser, "sessions_dir", "record", "results_dir", required=("sessions_dir",))
    parser.add_argument(
        "--commit", help="the commit the learn ran (default: this checkout's, as it is now)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    data = frontier(SessionStore(args.sessions_dir))
    if data is None:
        print(f"no learn record in {args.sessions_dir}: run `rlgpt-tui learn`", file=sys.stderr)
        return 2
    rows = learn_rows(data)
    print(json.dumps({"benchmark": "learn_frontier", "learn": data, "rows": rows}))
    if args.record:
        curriculum = data["curriculum"]
        agent = agent_label(curriculum) if curriculum.startswith("llm:") else "builtin"
        path = write_run(
            args.record,
            rows,
            command=learn_command(data),
            source="benchmarks/learn_frontier.py",
            folder=args.results_dir or RESULTS_DIR,
            group=GROUP,
            agent=agent,
            world=data["env"],
            # each record its own library: one record's rows never supersede another's
            library=f"grown by learn record {args.record} from the {data['library']} library",
            details={"status": data["status"], "reason": data["reason"], "hours": data["hours"]},
            **({"commit": args.commit} if args.commit else {}),
        )
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
