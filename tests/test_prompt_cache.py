"""benchmarks/prompt_cache.py replays a session's recorded prompts over real HTTP, once
without and once with the server's prompt cache, asking for the recorded answer lengths."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

from rlgpt_tui.engine import events as ev
from rlgpt_tui.store import SessionStore
from tests.llm_server import ScriptedLLMServer

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "prompt_cache.py"


def _recorded_session(folder: Path) -> tuple[int, list[list[dict[str, str]]]]:
    store = SessionStore(folder)
    sid = store.create_session("collect_wood", "craftax", "llm:m", {})
    prompts = [
        [{"role": "user", "content": f"World rules. Skill API. Question {i}."}] for i in range(3)
    ]
    for i, prompt in enumerate(prompts):
        store.record(
            sid,
            ev.LLMCalled(
                iteration=0,
                agent="llm:m",
                role="slow",
                model="m",
                prompt=prompt,
                answer="{}",
                prompt_tokens=7,
                completion_tokens=5 + i,
                latency_s=1.0,
                attempts=1,
                ok=True,
                error=None,
            ),
        )
    # a call the endpoint never answered is not replayed
    store.record(
        sid,
        ev.LLMCalled(
            iteration=0,
            agent="llm:m",
            role="critic",
            model="m",
            prompt=prompts[0],
            answer="",
            prompt_tokens=0,
            completion_tokens=0,
            latency_s=0.0,
            attempts=3,
            ok=False,
            error="timeout",
        ),
    )
    store.close()
    return sid, prompts


def test_replays_the_recorded_prompts_without_then_with_the_cache(tmp_path, capsys):
    sid, prompts = _recorded_session(tmp_path)
    with ScriptedLLMServer(model="m", responder=lambda messages: "a b c") as server:
        main = runpy.run_path(str(SCRIPT))["main"]
        code = main(
            [
                "--sessions-dir",
                str(tmp_path),
                "--session",
                str(sid),
                "--llm-base-url",
                server.base_url,
                "--llm-model",
                "m",
            ]
        )
    assert code == 0
    replayed = [r for r in server.requests if r["messages"] in prompts]
    assert [r["messages"] for r in replayed] == prompts + prompts
    # the cached pass first: a server that saw the prompts would answer them from its cache
    assert [r["cache_prompt"] for r in replayed] == [True] * 3 + [False] * 3
    assert all(r["ignore_eos"] for r in replayed)
    assert [r["max_tokens"] for r in replayed] == [5, 6, 7, 5, 6, 7]
    out, err = capsys.readouterr()
    assert "warning" not in err
    line = json.loads(out.strip().splitlines()[-1])
    (session,) = line["sessions"]
    assert session["task"] == "collect_wood" and session["calls"] == 3
    assert session["without_cache"]["completion_tokens"] == 9  # the server's counts, summed
    assert line["seconds_without_cache"] >= 0 and line["seconds_with_cache"] >= 0


def test_a_session_without_answered_calls_is_refused(tmp_path, capsys):
    store = SessionStore(tmp_path)
    sid = store.create_session("collect_wood", "craftax", "builtin", {})
    store.close()
    main = runpy.run_path(str(SCRIPT))["main"]
    code = main(
        [
            "--sessions-dir",
            str(tmp_path),
            "--session",
            str(sid),
            "--llm-base-url",
            "http://127.0.0.1:9/v1",
            "--llm-model",
            "m",
        ]
    )
    assert code == 2
    assert "recorded no answered LLM calls" in capsys.readouterr().err


def test_a_server_that_has_seen_the_prompts_is_named(tmp_path, capsys):
    sid, _ = _recorded_session(tmp_path)
    cached = {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "length",
                "message": {"role": "assistant", "content": "a"},
            }
        ],
        "usage": {"prompt_tokens": 7, "completion_tokens": 5, "total_tokens": 12},
        "timings": {"prompt_n": 1},  # llama.cpp: one of seven prompt tokens evaluated
    }
    with ScriptedLLMServer(model="m", responder=lambda messages: "a") as server:
        server.script = [{"content": "OK"}, {"body": cached}]  # the reset, then the first call
        main = runpy.run_path(str(SCRIPT))["main"]
        args = ["--sessions-dir", str(tmp_path), "--session", str(sid)]
        code = main([*args, "--llm-base-url", server.base_url, "--llm-model", "m"])
    assert code == 0
    assert "restart the server, it has seen these prompts" in capsys.readouterr().err
