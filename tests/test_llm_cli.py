"""`rlgpt-tui` against misbehaving models and bad input: every session ends recorded, every
bad input is one line and exit 2 before any session exists.

Real HTTP (tests/llm_server.py), real worlds, real SQLite; sessions go to the temporary
folder of the ``sessions_dir`` fixture (conftest.py).
"""

from __future__ import annotations

import json

import pytest

from rlgpt_tui.agents.schemas import CodeAnswer, RLAnswerStrict
from rlgpt_tui.cli import main
from rlgpt_tui.store import SessionStore
from tests.llm_server import ScriptedLLMServer
from tests.test_agents_engine import PLAN, VERDICT_OK, role_of, scripted_agent

TINY = [
    "--task",
    "collect_wood",
    "--num-envs",
    "8",
    "--samples-per-iteration",
    "1024",
    "--max-samples",
    "4096",
    "--eval-episodes",
    "8",
    "--final-episodes",
    "8",
    "--target",
    "1.0",
    "--library",
    "empty",  # the scripted model's code, not the builtin templates of the same names
]


def run_cli(argv: list[str]) -> int:
    """main(argv)'s exit code, also when argparse exits."""
    try:
        return main(argv)
    except SystemExit as done:
        return int(done.code or 0)


def llm_run(server: ScriptedLLMServer, *extra: str) -> int:
    argv = ["run", *TINY, "--llm-base-url", server.base_url, "--llm-model", server.model]
    return run_cli(argv + list(extra))


@pytest.fixture
def files(tmp_path):
    paths = {
        "list": tmp_path / "list.json",
        "string": tmp_path / "string.json",
        "binary": tmp_path / "binary.bin",
        "soon": tmp_path / "soon.toml",
    }
    paths["list"].write_text("[1, 2]")
    paths["string"].write_text('"collect_wood"')
    paths["binary"].write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe\x00")
    paths["soon"].write_text('[llm]\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\n')
    paths["soon"].write_text(paths["soon"].read_text() + 'timeout = "soon"\n')
    return {k: str(v) for k, v in paths.items()} | {"missing": str(tmp_path / "nope.toml")}


BAD_INPUT = [
    (["run", "--task", "collect_wood", "--num-envs", "-4"], "--num-envs must be at least 1"),
    (["run", "--task", "collect_wood", "--seed", "-1"], "--seed must be 0 or more"),
    (["run", "--task", "collect_wood", "--max-tokens", "-5"], "--max-tokens must be at least 1"),
    (
        ["run", "--task", "collect_wood", "--final-episodes", "0"],
        "--final-episodes must be at least 1",
    ),
    (["run", "--task", "collect_wood", "--iterations", "abc"], "invalid int value: 'abc'"),
    (["run", "--task", "collect_wood", "--llm-config", "{missing}"], "cannot read --llm-config"),
    (["run", "--task", "collect_wood", "--llm-config", "{binary}"], "is not a text file"),
    (["run", "--task", "collect_wood", "--llm-config", "{soon}"], "timeout = 'soon' is invalid"),
    (
        ["run", "--task", "collect_wood", "--llm-model", "m", "--llm-timeout", "-3"],
        "timeout = -3.0 is invalid",
    ),
    # the app: before it takes the terminal
    (["app", "--llm-config", "{missing}"], "cannot read --llm-config"),
    (["app", "--llm-config", "{soon}"], "timeout = 'soon' is invalid"),
    (["app", "--llm-timeout", "0"], "timeout = 0.0 is invalid"),
    (["train", "--task", "collect_wood", "--config", "{list}"], "holds a JSON list"),
    (["train", "--task", "collect_wood", "--config", "{string}"], "holds a JSON str"),
    (["train", "--task", "collect_wood", "--config", "{binary}"], "not a UTF-8 text file"),
    (["train", "--task", "collect_wood", "--coded", "{binary}"], "not a UTF-8 text file"),
    (["train", "--task", "collect_wood", "--reward", "{binary}"], "not a UTF-8 text file"),
    (
        ["eval", "--task", "collect_wood", "--only-coded", "nope"],
        "--only-coded 'nope' is not a coded action",
    ),
]


@pytest.mark.parametrize(
    ("argv", "expected"), BAD_INPUT, ids=[" ".join(a[2:]) for a, _ in BAD_INPUT]
)
def test_bad_input_is_one_line_exit_2_and_no_session(
    argv, expected, files, sessions_dir, capsys
) -> None:
    argv = [a.format(**files) for a in argv]
    assert run_cli(argv) == 2
    err = capsys.readouterr().err.strip()
    assert expected in err, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert SessionStore(sessions_dir).list_sessions() == []


def test_a_bad_torch_device_is_one_line_before_any_session(sessions_dir, monkeypatch, capsys):
    monkeypatch.setenv("RLGPT_TORCH_DEVICE", "gpu")
    assert run_cli(["run", "--task", "collect_wood"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("RLGPT_TORCH_DEVICE must be auto, cpu or cuda, got 'gpu'"), err
    assert len(err.splitlines()) == 1
    assert SessionStore(sessions_dir).list_sessions() == []


def test_sessions_dir_works_before_and_after_the_subcommand(tmp_path, capsys) -> None:
    for argv in (
        ["sessions", "list", "--sessions-dir", str(tmp_path / "a")],
        ["sessions", "--sessions-dir", str(tmp_path / "b"), "list"],
        ["--sessions-dir", str(tmp_path / "c"), "sessions", "list"],
    ):
        assert run_cli(argv) == 0
    assert all((tmp_path / d / "rlgpt.db").exists() for d in "abc")
    assert run_cli(["sessions", "show", "9", "--sessions-dir", str(tmp_path / "a")]) == 2
    assert "session 9" in capsys.readouterr().err


def test_help_shows_defaults_and_the_llm_timeout(capsys) -> None:
    assert run_cli(["run", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "(default: 4)" in out and "(default: 0.9)" in out
    assert "--llm-timeout SECONDS" in out and "(default: 60" in out


@pytest.mark.parametrize("support", ["accept", "reject"])
def test_doctor_runs_one_completion_and_reports_structured_output(support, capsys) -> None:
    with ScriptedLLMServer(
        responder=lambda m: '{"ready": true, "word": "ready"}', response_format=support
    ) as server:
        run_cli(["doctor", "--llm-base-url", server.base_url, "--llm-model", server.model])
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "LLM completion" in x)
    assert line.startswith("OK") and "tokens/s" in line
    expected = "structured output: yes" if support == "accept" else "structured output: no"
    assert expected in line


def echo_the_schema(messages) -> str:
    """A weak model: for the fast agent it sends the JSON Schema back, every time."""
    if role_of(messages) == "fast":
        schema = CodeAnswer if "Write the code" in messages[-1]["content"] else RLAnswerStrict
        return json.dumps(schema.model_json_schema())
    return scripted_agent(messages)


@pytest.mark.slow
def test_fast_answers_that_always_fail_never_end_the_session(sessions_dir, capsys) -> None:
    with ScriptedLLMServer(responder=echo_the_schema) as server:
        code = llm_run(server, "--iterations", "2")
        slow_requests = [r for r in server.requests if role_of(r["messages"]) == "slow"]
    err = " ".join(capsys.readouterr().err.split())  # as printed, unwrapped
    assert code == 0 and "Traceback" not in err
    store = SessionStore(sessions_dir)
    (session,) = store.list_sessions()
    assert session.status == "finished" and session.iterations == 2
    verdicts = store.rows("verdicts", session.id)
    failed = [v for v in verdicts if v["subaction"] == "go_to_tree"]
    assert failed and all("the fast agent's answer failed" in v["reason"] for v in failed)
    # PPO trained without the coded action whose code never came, and says so
    started = [e for e in store.events(session.id) if e["kind"] == "training_started"]
    assert len(started) == 2 and all(e["config"]["coded_actions"] == [] for e in started)
    assert "left out (no valid code): go_to_tree" in started[0]["config"]["high_level_actions_note"]
    assert "left out (no valid code): go_to_tree" in err
    # the slow agent heard about it before its second plan
    assert "the fast agent's answer failed" in slow_requests[1]["messages"][-1]["content"]
    calls = store.rows("llm_calls", session.id)
    fast = [c for c in calls if c["role"] == "fast"]
    assert {c["validated"] for c in fast} == {0} and {c["repair_round"] for c in fast} == {0, 1, 2}
    assert {c["mode"] for c in calls} == {"json_schema"}
    assert all(c["validated"] == 1 for c in calls if c["role"] in ("slow", "critic"))
    assert run_cli(["sessions", "show", str(session.id)]) == 0
    report = capsys.readouterr().out
    assert "| fast |" in report and "answers valid" in report
    assert "`collect_wood`: none (the plan's: go_to_tree); left out (no valid code)" in report


HOSTILE_PLAN = {
    "subactions": [
        PLAN["subactions"][0],
        PLAN["subactions"][1] | {"reason": "learn [/] when [bold]to\ud800 press\x00 do [/]"},
    ],
    "notes": "[/]",
}


@pytest.mark.slow
def test_markup_surrogates_nul_and_long_names_in_answers_are_data(sessions_dir, capsys) -> None:
    too_long = json.loads(json.dumps(PLAN))
    too_long["subactions"][0]["name"] = "go_" * 100
    verdict = VERDICT_OK | {"reason": "fine [/] [red]"}

    def responder(messages):
        if role_of(messages) == "critic":
            return json.dumps(verdict)
        return scripted_agent(messages)

    with ScriptedLLMServer(responder=responder) as server:
        server.script = [{"content": json.dumps(too_long)}, {"content": json.dumps(HOSTILE_PLAN)}]
        code = llm_run(server, "--iterations", "1")
    err = " ".join(capsys.readouterr().err.split())  # as printed, unwrapped
    assert code == 0 and "Traceback" not in err
    assert "learn [/] when [bold]to\ufffd press do [/]" in err and "fine [/] [red]" in err
    store = SessionStore(sessions_dir)
    (session,) = store.list_sessions()
    assert session.status == "finished"
    (plan,) = store.rows("plans", session.id)
    reason = json.loads(plan["plan"])["subactions"][1]["reason"]
    assert reason == "learn [/] when [bold]to\ufffd press do [/]"
    first = store.rows("llm_calls", session.id)[0]
    assert first["validated"] == 0 and "short snake_case identifier" in first["error"]
    assert sorted(p.name for p in (sessions_dir / str(session.id) / "code").iterdir()) == [
        "go_to_tree.py"
    ]


def test_no_plan_at_all_ends_the_session_as_an_error_in_one_line(sessions_dir, capsys) -> None:
    with ScriptedLLMServer(responder=lambda m: "I would rather not.") as server:
        code = llm_run(server, "--iterations", "1")
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    (session,) = SessionStore(sessions_dir).list_sessions()
    assert session.status == "failed"
    assert session.reason.startswith("error: no plan could be made: the model's slow answer")


def test_refused_first_plans_give_way_to_the_recipes_steps_and_the_models_code_runs(
    sessions_dir, capsys
) -> None:
    """A 1.5B model's three first plans for make_wood_pickaxe were refused (out of order,
    then twice the example copied after the repair request showed it again), and the
    session ended with nothing measured. Plans that are refused, not absent, now give way
    to the goal's steps from the world's recipes, labelled as such; the model still writes
    the code, and its code is what runs and is measured."""
    from rlgpt_tui.agents.schemas import PlanAnswer

    out_of_order = {
        "subactions": [
            {"name": n, "description": f"do {n}", "mode": "code", "reason": "easy"}
            for n in ("place_table", "collect_wood")
        ]
    }
    copied = json.loads(PlanAnswer.EXAMPLE)
    code = {
        "collect_wood": 'def act(ctx):\n    yield from ctx.collect("tree")\n',
        "place_table": 'def act(ctx):\n    yield from ctx.place("table")\n',
    }
    requests: list[str] = []

    def responder(messages):
        role = role_of(messages)
        if role == "slow":
            requests.append(messages[-1]["content"])
            return json.dumps(out_of_order if len(requests) == 1 else copied)
        if role == "fast":
            name = next(n for n in code if f"coded sub-action `{n}`" in messages[-1]["content"])
            return json.dumps({"code": code[name], "explanation": "chop, then place"})
        return json.dumps(VERDICT_OK)

    with ScriptedLLMServer(responder=responder) as server:
        exit_code = llm_run(server, "--task", "place_table", "--iterations", "1")
    err = " ".join(capsys.readouterr().err.split())
    assert exit_code == 0 and "Traceback" not in err
    assert "plan by the world's recipes (the slow agent's plans failed)" in err
    # the repair request names the problem; with structured output it shows no example
    assert "place_table (step 1) needs wood, which no earlier step makes" in requests[1]
    assert PlanAnswer.EXAMPLE not in requests[1] and "collect_clay" not in requests[1]
    store = SessionStore(sessions_dir)
    (session,) = store.list_sessions()
    assert session.status == "finished"
    (plan,) = store.rows("plans", session.id)
    assert plan["source"] == "recipes"
    assert [s["name"] for s in json.loads(plan["plan"])["subactions"]] == [
        "collect_wood",
        "place_table",
    ]
    ran = sessions_dir / str(session.id) / "code"
    assert {p.name: p.read_text() for p in ran.iterdir()} == {f"{n}.py": c for n, c in code.items()}
    evaluations = store.rows("evaluations", session.id)
    assert max(e["value"] for e in evaluations) >= 0.5  # the model's code placed tables


def test_a_slow_server_gets_timed_out_after_n_seconds_with_the_fix(
    sessions_dir, tmp_path, capsys
) -> None:
    config = tmp_path / "llm.toml"
    config.write_text("[llm]\nmax_retries = 1\nbackoff = 0.1\ntimeout = 30\n")
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"delay": 4, "content": json.dumps(PLAN)}] * 2
        code = llm_run(
            server, "--iterations", "1", "--llm-timeout", "1", "--llm-config", str(config)
        )
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    (session,) = SessionStore(sessions_dir).list_sessions()
    assert "timed out after 1 s" in session.reason and "--llm-timeout" in session.reason
    assert "cannot reach" not in session.reason


@pytest.mark.slow
def test_a_failed_re_plan_keeps_the_previous_plan_and_the_run_goes_on(capsys) -> None:
    from rlgpt_tui.agents.llm_team import LLMTeam
    from rlgpt_tui.engine import events as ev
    from rlgpt_tui.engine.engine import Engine
    from rlgpt_tui.llm.client import LLMClient
    from rlgpt_tui.llm.settings import LLMSettings
    from tests.settings import tiny_settings

    plans = iter([json.dumps(PLAN)])

    def responder(messages):
        if role_of(messages) == "slow":
            return next(plans, "no plan this time")
        return scripted_agent(messages)

    with ScriptedLLMServer(responder=responder) as server:
        settings = LLMSettings.resolve(server.base_url, server.model, repair_rounds=1)
        events: list[ev.Event] = []
        result = Engine(
            tiny_settings(max_iterations=2), LLMTeam(LLMClient(settings)), events.append
        ).run()
    assert result.reason == "iterations used up" and len(result.history) == 2
    proposed = [e for e in events if isinstance(e, ev.PlanProposed)]
    assert [p.source for p in proposed] == ["agent", "previous plan"]
    assert proposed[1].plan == proposed[0].plan
    errors = [e.message for e in events if isinstance(e, ev.EngineError)]
    assert errors and "the slow agent's answer failed" in errors[0]


@pytest.mark.slow
def test_valid_code_from_an_earlier_attempt_is_kept_when_a_repair_answer_fails(
    sessions_dir, capsys
) -> None:
    from tests.test_agents_engine import GO_TO_TREE

    code_answers = iter([json.dumps({"code": GO_TO_TREE, "explanation": "walk to a tree"})])
    verdict_no = {"success": False, "reason": "ends far from trees", "suggestion": "explore"}

    def responder(messages):
        role, request = role_of(messages), messages[-1]["content"]
        if role == "fast" and "Write the code" in messages[1]["content"]:
            return next(code_answers, json.dumps(CodeAnswer.model_json_schema()))
        if role == "critic" and "(code)" in request:
            return json.dumps(verdict_no)
        return scripted_agent(messages)

    with ScriptedLLMServer(responder=responder) as server:
        assert llm_run(server, "--iterations", "1") == 0
    store = SessionStore(sessions_dir)
    (session,) = store.list_sessions()
    assert session.status == "finished"
    (version,) = store.rows("code_versions", session.id)
    assert version["valid"] == 1 and version["attempt"] == 0  # the kept code stays valid
    done = [e for e in store.events(session.id) if e["kind"] == "subaction_done"]
    assert done[0]["subaction"] == "go_to_tree" and done[0]["code"] == GO_TO_TREE
    (started,) = [e for e in store.events(session.id) if e["kind"] == "training_started"]
    assert started["config"]["coded_actions"] == ["go_to_tree"]
    failed = [e for e in store.events(session.id) if e["kind"] == "validation_failed"]
    assert failed and "the fast agent's answer failed" in failed[0]["error"]


def test_resume_takes_a_new_llm_timeout_and_refuses_it_for_the_builtin_agent(
    sessions_dir, capsys
) -> None:
    import dataclasses

    from rlgpt_tui.llm.settings import LLMSettings
    from tests.settings import tiny_settings

    store = SessionStore(sessions_dir)
    settings = dataclasses.asdict(tiny_settings())
    builtin = store.create_session("collect_wood", "craftax", "builtin", settings)
    store.finish(builtin, "stopped", "stopped")
    assert run_cli(["resume", str(builtin), "--llm-timeout", "300"]) == 2
    assert "used the builtin agent" in capsys.readouterr().err
    # run's flags given again (as a person retyping the run command did): what to drop
    again = ["--llm-config", "llm.toml", "--llm-model", "m", "--num-envs", "4"]
    assert run_cli(["resume", str(builtin), *again]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "resume keeps the session's recorded settings" in err
    assert "drop --llm-config --llm-model --num-envs (see `rlgpt-tui resume --help`)" in err
    assert run_cli(["tasks", "--bogus"]) == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err
    # an LLM session resumed with --llm-timeout: the endpoint is gone, said in one line
    recorded = dataclasses.asdict(LLMSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    llm = store.create_session("collect_wood", "craftax", "llm:m", settings, recorded)
    store.finish(llm, "stopped", "stopped")
    assert run_cli(["resume", str(llm), "--llm-timeout", "-1"]) == 2
    assert "timeout = -1.0 is invalid" in capsys.readouterr().err
    assert run_cli(["resume", str(llm), "--llm-timeout", "5"]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        "cannot reach the LLM endpoint http://127.0.0.1:9/v1" in err and len(err.splitlines()) == 1
    )


@pytest.mark.slow
def test_a_slow_model_in_the_app_the_forms_timeout_then_a_resume_with_a_longer_one(
    tmp_path,
) -> None:
    """A person at the keys with a slow local model: the new-session form's LLM timeout is
    the one the session uses (too short: the session fails, saying which field to raise),
    and the app started with `--llm-timeout` resumes that failed session with the longer
    timeout, which then gets past the plan it failed on."""
    import asyncio

    from rlgpt_tui.tui.app import RlgptApp
    from rlgpt_tui.tui.screens.run import RunScreen
    from tests.test_tui import run_screen, session_rows
    from tests.waiting import until

    config = tmp_path / "llm.toml"
    config.write_text("[llm]\nmax_retries = 0\n")  # one try per call: the test stays short
    sessions = tmp_path / "sessions"
    fields = {
        "num_envs": "8",
        "samples_per_iteration": "1024",
        "max_samples": "4096",
        "max_iterations": "1",
        "library": "empty",
        "llm_timeout": "1",
    }
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"delay": 3, "content": json.dumps(PLAN)}] * 2  # late answers

        async def start_with_a_short_timeout() -> None:
            app = RlgptApp(sessions, llm_config=config)
            async with app.run_test(size=(160, 50)) as pilot:
                await pilot.press("n")
                form = app.screen
                assert form.query_one("#llm_timeout").value == "60"  # the default, shown
                form.query_one("#url").value = server.base_url
                form.query_one("#model").value = server.model
                for name, value in fields.items():
                    form.query_one(f"#{name}").value = value
                await pilot.press("ctrl+s")
                store = SessionStore(sessions)

                def failed() -> bool:
                    listed = store.list_sessions()
                    return bool(listed) and listed[0].status == "failed"

                await until(pilot, failed, 60, "the session to fail on the timeout")

        asyncio.run(start_with_a_short_timeout())
        (session,) = SessionStore(sessions).list_sessions()
        assert "timed out after 1 s" in session.reason
        assert "the app's LLM timeout field" in session.reason
        assert SessionStore(sessions).get(session.id).llm["timeout"] == 1

        async def resume_with_a_longer_one() -> None:
            app = RlgptApp(sessions, llm_config=config, llm_timeout=30)
            async with app.run_test(size=(160, 50)) as pilot:
                await until(pilot, lambda: session_rows(app) == 1, 30, "the failed session")
                await pilot.press("enter")  # failed: resumed
                screen = await run_screen(pilot, app)
                store = SessionStore(sessions)

                def planned() -> bool:
                    return any(e["kind"] == "plan_proposed" for e in store.events(session.id))

                await until(pilot, planned, 60, "the plan the first try timed out on")
                await pilot.press("s")  # stop at the next safe point
                await until(pilot, lambda: screen.ended, 120, "the stop")
                assert isinstance(screen, RunScreen)

        asyncio.run(resume_with_a_longer_one())
    resumed = SessionStore(sessions).get(session.id)
    assert resumed.llm["timeout"] == 30 and resumed.status != "failed"


def test_a_llama_cpp_servers_gguf_path_names_the_agent_by_the_files_stem(sessions_dir) -> None:
    gguf = "/home/me/models/qwen2.5-coder-1.5b.gguf"  # llama.cpp's model id: the file's path
    with ScriptedLLMServer(model=gguf, responder=lambda m: "I would rather not.") as server:
        llm_run(server, "--iterations", "1")
    (session,) = SessionStore(sessions_dir).list_sessions()
    assert session.agent == "llm:qwen2.5-coder-1.5b"
