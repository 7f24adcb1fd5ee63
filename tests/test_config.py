"""The user config file and the precedence of settings: flags > environment > --llm-config
FILE > the user config file > defaults; `rlgpt-tui config` says where each came from and
never shows the key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rlgpt_tui.cli import build_parser, main
from rlgpt_tui.cli.common import llm_settings
from rlgpt_tui.config import config_path
from rlgpt_tui.llm.settings import LLMError, LLMSettings


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.fixture
def user_file(tmp_path, monkeypatch) -> Path:
    """A user config file with an [llm] table and a sessions folder, named by RLGPT_CONFIG."""
    path = write(
        tmp_path / "config.toml",
        'sessions_dir = "my-sessions"\n\n[llm]\nbase_url = "http://127.0.0.1:9/v1"\n'
        'model = "file-model"\ntimeout = 30\napi_key_env = "MY_LLM_KEY"\n',
    )
    monkeypatch.setenv("RLGPT_CONFIG", str(path))
    for name in ("RLGPT_LLM_BASE_URL", "RLGPT_LLM_MODEL", "RLGPT_SESSIONS_DIR", "MY_LLM_KEY"):
        monkeypatch.delenv(name, raising=False)
    return path


def config_rows(capsys, *argv: str) -> tuple[str, dict[str, tuple[str, str]]]:
    """`rlgpt-tui config`'s output and its rows: setting -> (value, source)."""
    assert main(["config", *argv]) == 0
    out = capsys.readouterr().out
    rows = {}
    for line in out.splitlines()[1:]:
        name, value, source = re.split(r"\s{2,}", line.strip())
        rows[name] = (value, source)
    return out, rows


def test_the_user_config_file_is_read_and_each_setting_says_where_it_came_from(
    user_file, capsys
) -> None:
    out, rows = config_rows(capsys)
    assert out.splitlines()[0] == f"config file: {user_file} (exists)"
    assert rows["llm.model"] == ("file-model", f"file {user_file}")
    assert rows["llm.timeout"] == ("30", f"file {user_file}")
    assert rows["llm.temperature"] == ("0.2", "default")
    assert rows["sessions_dir"] == (str(user_file.parent / "my-sessions"), f"file {user_file}")


def test_flags_beat_the_environment_which_beats_llm_config_which_beats_the_user_file(
    user_file, tmp_path, capsys, monkeypatch
) -> None:
    given = write(tmp_path / "given.toml", '[llm]\nmodel = "given-model"\nmax_tokens = 99\n')
    _, rows = config_rows(capsys, "--llm-config", str(given))
    assert rows["llm.model"] == ("given-model", f"file {given} (--llm-config)")
    assert rows["llm.max_tokens"] == ("99", f"file {given} (--llm-config)")
    assert rows["llm.timeout"] == ("30", f"file {user_file}")  # not in the given file
    monkeypatch.setenv("RLGPT_LLM_MODEL", "env-model")
    monkeypatch.setenv("RLGPT_SESSIONS_DIR", str(tmp_path / "env-sessions"))
    _, rows = config_rows(capsys, "--llm-config", str(given))
    assert rows["llm.model"] == ("env-model", "env RLGPT_LLM_MODEL")
    assert rows["sessions_dir"] == (str(tmp_path / "env-sessions"), "env RLGPT_SESSIONS_DIR")
    _, rows = config_rows(
        capsys, "--llm-config", str(given), "--llm-model", "flag-model", "--llm-timeout", "5",
        "--sessions-dir", "flagged",
    )  # fmt: skip
    assert rows["llm.model"] == ("flag-model", "flag --llm-model")
    assert rows["llm.timeout"] == ("5.0", "flag --llm-timeout")
    assert rows["sessions_dir"] == ("flagged", "flag --sessions-dir")


def test_the_key_is_never_shown_only_whether_its_variable_is_set(
    user_file, capsys, monkeypatch
) -> None:
    out, rows = config_rows(capsys)
    assert rows["llm api key"][0] == "not set in $MY_LLM_KEY"
    monkeypatch.setenv("MY_LLM_KEY", "sk-secret-4242")
    out, rows = config_rows(capsys)
    assert rows["llm api key"][0] == "set in $MY_LLM_KEY"
    assert "sk-secret-4242" not in out


def test_a_key_in_the_user_file_is_refused_by_every_command_in_one_line(user_file, capsys) -> None:
    write(user_file, '[llm]\nmodel = "m"\napi_key = "sk-secret-4242"\n')
    for argv in (["config"], ["run", "--task", "collect_wood"], ["sessions", "list"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "holds an API key: remove it" in err and "sk-secret" not in err
        assert err.count("\n") == 1


def test_a_config_file_that_is_missing_or_malformed_is_one_line(
    tmp_path, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("RLGPT_CONFIG", str(tmp_path / "nope.toml"))
    assert main(["config"]) == 2
    assert "RLGPT_CONFIG names" in capsys.readouterr().err
    monkeypatch.setenv("RLGPT_CONFIG", str(write(tmp_path / "bad.toml", "[llm\n")))
    assert main(["tasks"]) == 2
    err = capsys.readouterr().err
    assert f"bad config file {tmp_path / 'bad.toml'}" in err and err.count("\n") == 1
    monkeypatch.setenv("RLGPT_CONFIG", str(write(tmp_path / "odd.toml", "colour = 3\n")))
    assert main(["config"]) == 2
    assert "unknown setting(s) colour" in capsys.readouterr().err


def test_run_and_the_app_take_their_llm_settings_from_the_user_file(user_file, tmp_path) -> None:
    args = build_parser().parse_args(["run", "--task", "collect_wood"])
    settings = llm_settings(args)
    assert (settings.model, settings.timeout, settings.api_key_env) == (
        "file-model",
        30,
        "MY_LLM_KEY",
    )
    from rlgpt_tui.tui.app import RlgptApp

    app = RlgptApp(tmp_path / "sessions", llm_timeout=7)
    assert (app.llm_defaults.model, app.llm_defaults.timeout) == ("file-model", 7)


def test_sessions_go_where_the_user_file_says(user_file, capsys) -> None:
    assert main(["sessions", "list"]) == 0
    assert (user_file.parent / "my-sessions" / "rlgpt.db").exists()


def test_a_recorded_sessions_settings_ignore_the_user_file(user_file) -> None:
    record = {"model": "recorded-model", "base_url": "http://127.0.0.1:8/v1", "backoff": 1.0}
    settings = LLMSettings.recorded(record)
    assert (settings.model, settings.timeout) == ("recorded-model", 60.0)


def test_a_bad_value_in_the_user_file_names_it(user_file) -> None:
    write(user_file, '[llm]\ntimeout = "soon"\n')
    with pytest.raises(LLMError, match="LLM setting timeout = 'soon' is invalid"):
        LLMSettings.resolve()


def test_the_default_file_is_in_the_platforms_config_folder(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("RLGPT_CONFIG")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_path() == tmp_path / "xdg" / "rlgpt-tui" / "config.toml"
    assert LLMSettings.resolve().model is None  # no file there: the defaults


def test_doctor_reports_a_bad_user_file_as_a_failed_check(user_file, capsys) -> None:
    write(user_file, "[llm\n")
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "config file" in x)
    assert line.startswith("FAIL") and f"bad config file {user_file}" in line
    assert "failed: sessions folder, config file, LLM endpoint" in out
