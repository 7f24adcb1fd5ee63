"""LLM seconds per session with and without a server's prompt cache, at equal tokens.

Replays the LLM calls a session recorded (its prompts, in order) against an
OpenAI-compatible llama.cpp server twice, side by side in one run: first with
``cache_prompt: true`` (the server reuses the longest prefix it holds of an earlier prompt:
its slot's last one, and those its host-memory prompt cache, ``cache_ram``, kept; the
prompts' static part, world rules, recipes, skill API and library listing, comes first for
this), then with ``cache_prompt: false`` (every prompt evaluated from its first token, as
when no two calls shared a prefix). The cached pass goes first, against a server that has
not seen these prompts (start a fresh one): a server that has would answer them from its
cache, which a session's new prompts never are; the script warns when the first session's
first prompt came from the cache (a later session's may, in part: its prefix is an earlier
session's). Each replayed call asks for exactly the
completion tokens the session recorded (``max_tokens`` with ``ignore_eos``, greedy), so
both passes process the same tokens. Prints one JSON line: per session, seconds without
and with the cache, the prompt tokens the server evaluated in each, and the ratio.

    python benchmarks/prompt_cache.py --sessions-dir runs/learn --session 1 \\
        --llm-base-url http://127.0.0.1:8080/v1 --llm-model MODEL
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from openai import OpenAI

from rlgpt_bench import options
from rlgpt_bench.options import add_options
from rlgpt_bench.results import git_commit, machine_text
from rlgpt_tui.store import SessionStore

#: a short prompt sent between passes so the next pass starts with nothing cached
RESET = [{"role": "user", "content": "Say OK."}]


def recorded_calls(store: SessionStore, session_id: int, limit: int | None) -> list[dict]:
    """The session's answered LLM calls in order: messages and completion tokens."""
    calls = []
    for row in store.rows("llm_calls", session_id):
        if not row.get("ok"):
            continue
        calls.append(
            {
                "messages": json.loads(row["prompt"]),
                "completion_tokens": max(1, int(row.get("completion_tokens") or 1)),
                "prompt_tokens": int(row.get("prompt_tokens") or 0),
                "recorded_s": float(row.get("latency_s") or 0.0),
            }
        )
    return calls[:limit] if limit else calls


def replay(client: OpenAI, model: str, calls: list[dict], cache: bool) -> dict[str, Any]:
    """Send ``calls`` in order; seconds in all and the tokens the server evaluated."""
    client.chat.completions.create(
        model=model, messages=RESET, max_tokens=1, extra_body={"cache_prompt": False}
    )
    seconds = 0.0
    prompt_tokens = evaluated = completion_tokens = 0
    first_evaluated: int | None = None
    for call in calls:
        start = time.perf_counter()
        response = client.chat.completions.create(
            model=model,
            messages=call["messages"],
            max_tokens=call["completion_tokens"],
            temperature=0.0,
            extra_body={"cache_prompt": cache, "ignore_eos": True},
        )
        seconds += time.perf_counter() - start
        usage = response.usage
        prompt_tokens += usage.prompt_tokens if usage else 0
        completion_tokens += usage.completion_tokens if usage else 0
        timings = (response.model_extra or {}).get("timings") or {}
        n = int(timings.get("prompt_n", usage.prompt_tokens if usage else 0))
        evaluated += n
        first_evaluated = n if first_evaluated is None else first_evaluated
    return {
        "seconds": round(seconds, 3),
        "prompt_tokens": prompt_tokens,
        "prompt_tokens_evaluated": evaluated,
        "completion_tokens": completion_tokens,
        "first_evaluated": first_evaluated or 0,
    }


def build_parser() -> argparse.ArgumentParser:
    parser = options.parser("prompt_cache", __doc__)
    required = ("sessions_dir", "llm_base_url", "llm_model")
    add_options(parser, *required, required=required)
    parser.add_argument("--session", type=int, action="append", required=True, metavar="ID")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    parser.add_argument("--calls", type=int, help="replay only each session's first N calls")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per request")
    args = parser.parse_args(argv)
    store = SessionStore(args.sessions_dir)
    client = OpenAI(base_url=args.llm_base_url, api_key="none", timeout=args.timeout)
    sessions = []
    for session_id in args.session:
        calls = recorded_calls(store, session_id, args.calls)
        if not calls:
            print(f"session {session_id} recorded no answered LLM calls", file=sys.stderr)
            return 2
        with_cache = replay(client, args.llm_model, calls, cache=True)
        fresh = not sessions  # the first session replayed: nothing of it can be cached
        if fresh and with_cache["first_evaluated"] < calls[0]["prompt_tokens"] // 2:
            print(
                f"warning: session {session_id}'s first prompt came from the server's cache: "
                "restart the server, it has seen these prompts",
                file=sys.stderr,
            )
        without = replay(client, args.llm_model, calls, cache=False)
        sessions.append(
            {
                "session": session_id,
                "task": store.get(session_id).task,
                "calls": len(calls),
                "recorded_seconds": round(sum(c["recorded_s"] for c in calls), 1),
                "without_cache": without,
                "with_cache": with_cache,
                "ratio": round(without["seconds"] / max(with_cache["seconds"], 1e-9), 2),
            }
        )
    total_off = sum(s["without_cache"]["seconds"] for s in sessions)
    total_on = sum(s["with_cache"]["seconds"] for s in sessions)
    print(
        json.dumps(
            {
                "benchmark": "prompt_cache",
                "model": args.llm_model,
                "commit": git_commit(),
                "machine": machine_text(),
                "sessions": sessions,
                "seconds_without_cache": round(total_off, 1),
                "seconds_with_cache": round(total_on, 1),
                "ratio": round(total_off / max(total_on, 1e-9), 2),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
