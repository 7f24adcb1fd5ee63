"""``rlgpt-tui doctor``: one line per check, with the fix when something is wrong.

Writes nothing: it reads the sessions folder, it does not create it.

Checks: Python and package versions, torch and JAX devices (and an NVIDIA GPU that JAX does
not use), the sessions folder, the user config file, the LLM
endpoint (reachable, model known, then one small completion: its latency, tokens/s, and
whether the endpoint takes the answer's JSON Schema as ``response_format``), and for
MineDojo: the named interpreter, whether ``minedojo`` imports there, and the Java version.
Never prints an API key.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from rlgpt_tui.config import ConfigError, resolve_sessions_dir, user_config
from rlgpt_tui.envs.minedojo.process import ENV_PYTHON
from rlgpt_tui.llm.client import LLMAnswerError, LLMClient
from rlgpt_tui.llm.settings import LLMError, LLMSettings
from rlgpt_tui.sandbox import SandboxUnavailable, Worker, default_workers, support_problem
from rlgpt_tui.store.lifecycle import DB_NAME

PACKAGES = (
    "torch",
    "jax",
    "craftax",
    "crafter",
    "stable-baselines3",
    "textual",
    "openai",
    "sqlite-utils",
    "watchfiles",
    "pillow",
    "pyseccomp",
    "platformdirs",
)


@dataclass
class Check:
    name: str
    status: str  # OK, INFO, WARN, FAIL
    detail: str
    fix: str = ""

    def line(self) -> str:
        fix = f"  -> {self.fix}" if self.fix else ""
        return f"{self.status:<4}  {self.name:<18} {self.detail}{fix}"


def check_python() -> Check:
    """The package requires 3.11+, so reaching here means it is new enough."""
    return Check("python", "OK", f"{sys.version.split()[0]} ({sys.executable})")


def check_packages() -> list[Check]:
    checks = []
    for package in PACKAGES:
        try:
            checks.append(Check(package, "OK", metadata.version(package)))
        except metadata.PackageNotFoundError:
            checks.append(Check(package, "FAIL", "not installed", "run bash scripts/setup.sh"))
    return checks


GPU_EXTRA_FIX = "pip install 'rlgpt-tui[gpu]' (JAX with CUDA 12), then run doctor again"


def nvidia_gpus() -> list[str]:
    """The NVIDIA GPUs this machine has (``nvidia-smi -L``; the driver's list otherwise)."""
    smi = shutil.which("nvidia-smi")
    if smi is not None:
        listed = _run([smi, "-L"])
        if listed:
            return [line.split(" (UUID")[0] for line in listed.splitlines() if line.strip()]
    driver = "/proc/driver/nvidia/gpus"
    return sorted(os.listdir(driver)) if os.path.isdir(driver) else []


def check_devices(gpus: list[str] | None = None) -> list[Check]:
    """Which device torch (PPO) and JAX (Craftax) run on; a GPU that JAX leaves idle is a
    warning naming the ``gpu`` extra."""
    gpus = nvidia_gpus() if gpus is None else gpus
    checks = []
    if gpus:
        checks.append(Check("nvidia gpu", "INFO", "; ".join(gpus)))
    try:
        # inside the check: a broken torch install is a FAIL line, not a crash
        import torch

        from rlgpt_tui.rl.model import policy_device

        if torch.cuda.is_available():
            detail = f"cuda ({torch.cuda.get_device_name(0)})"
        else:
            built = "CPU build" if torch.version.cuda is None else f"CUDA {torch.version.cuda}"
            detail = f"cpu (torch {torch.__version__}, {built}; no CUDA device visible)"
        checks.append(Check("torch device", "OK", f"{detail}; PPO uses {policy_device()}"))
    except Exception as error:  # a broken install is what doctor is for
        checks.append(Check("torch device", "FAIL", str(error), "run bash scripts/setup.sh"))
    try:
        import jax  # inside the check: a broken JAX install is a FAIL line, not a crash

        backend = jax.default_backend()
        devices = ", ".join(sorted({str(d.device_kind) for d in jax.devices()}))
        detail = f"{backend} ({devices}); Craftax runs there"
        if gpus and backend == "cpu":
            checks.append(
                Check(
                    "jax device",
                    "WARN",
                    f"{detail}, but this machine has an NVIDIA GPU",
                    GPU_EXTRA_FIX,
                )
            )
        else:
            checks.append(Check("jax device", "OK", detail))
    except Exception as error:
        checks.append(Check("jax device", "FAIL", str(error), "run bash scripts/setup.sh"))
    return checks


def check_sandbox() -> Check:
    """Can untrusted code run behind the OS boundary here? Starts one worker to prove it."""
    problem = support_problem()
    if problem is not None:
        return Check(
            "sandbox",
            "FAIL",
            problem,
            "install libseccomp (apt-get install libseccomp2), or run with --unsafe-local-code",
        )
    try:
        started = time.perf_counter()
        worker = Worker()
        worker.wait_ready()
        seconds = time.perf_counter() - started
        worker.kill()
    except SandboxUnavailable as error:
        return Check("sandbox", "FAIL", str(error), "run bash scripts/setup.sh")
    return Check(
        "sandbox",
        "OK",
        f"seccomp filter + rlimits; a worker started in {seconds:.2f} s; "
        f"{default_workers()} worker(s) per batch of envs",
    )


def check_sessions(sessions_dir: str | None) -> Check:
    """Where sessions go, and whether they can be written there; creates nothing."""
    try:
        folder = Path(resolve_sessions_dir(sessions_dir).value).absolute()
    except ConfigError as error:
        return Check("sessions folder", "FAIL", str(error))
    database = folder / DB_NAME
    if database.exists():
        size = database.stat().st_size
        writable = os.access(database, os.W_OK) and os.access(folder, os.W_OK)
        detail = f"{database} ({size / 1e6:.1f} MB)"
        if not writable:
            return Check("sessions folder", "FAIL", f"{detail} is read-only", _SESSIONS_FIX)
        return Check("sessions folder", "OK", detail)
    parent = folder
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not os.access(parent, os.W_OK):
        return Check(
            "sessions folder",
            "FAIL",
            f"{folder} cannot be created ({parent} is read-only)",
            _SESSIONS_FIX,
        )
    return Check("sessions folder", "OK", f"{folder} (none yet: the first session creates it)")


_SESSIONS_FIX = "pass --sessions-dir or set RLGPT_SESSIONS_DIR to a writable folder"


def check_config() -> Check:
    """The user config file: where it is, and that it reads."""
    try:
        path, document = user_config()
    except ConfigError as error:
        return Check("config file", "FAIL", str(error))
    if not path.exists():
        return Check("config file", "INFO", f"{path} (none: defaults; see `rlgpt-tui config`)")
    tables = ", ".join(sorted(document)) or "empty"
    return Check("config file", "OK", f"{path} ({tables}; see `rlgpt-tui config`)")


def check_llm(
    base_url: str | None,
    model: str | None,
    config: str | None,
    timeout: float | None = None,
    structured: str | None = None,
) -> list[Check]:
    try:
        settings = LLMSettings.resolve(
            base_url, model, config, timeout=timeout, structured=structured
        )
        if not settings.configured:
            return [Check("LLM endpoint", "INFO", "not configured: the builtin agent is used")]
        LLMClient(settings).check()
    except LLMError as error:
        return [Check("LLM endpoint", "FAIL", str(error))]
    return [
        Check("LLM endpoint", "OK", f"{settings.describe()} answers; model known"),
        check_llm_completion(settings),
    ]


class _Ping(BaseModel):
    """The doctor's one small structured question."""

    model_config = ConfigDict(extra="forbid")

    ready: bool
    word: str = Field(min_length=1, max_length=40)

    EXAMPLE: ClassVar[str] = '{"ready": true, "word": "ready"}'


def check_llm_completion(settings) -> Check:
    """One small structured completion: latency, tokens/s, structured output or not."""
    client = LLMClient(replace(settings, max_tokens=64, repair_rounds=1))
    messages = [
        {
            "role": "user",
            "content": 'Answer with only this JSON object: {"ready": true, "word": "ready"}',
        }
    ]
    try:
        client.structured("doctor", messages, _Ping)
        problem = ""
    except LLMAnswerError as error:
        problem = str(error)
    except LLMError as error:
        return Check("LLM completion", "FAIL", str(error))
    answered = [c for c in client.calls if c.ok]
    seconds = sum(c.latency_s for c in answered)
    tokens = sum(c.completion_tokens for c in answered)
    rate = f", {tokens / seconds:.1f} tokens/s" if seconds > 0 and tokens else ""
    modes = {
        "json_schema": "structured output: yes (response_format json_schema)",
        "plain": "structured output: no (plain prompts with repair rounds)",
    }
    detail = (
        f"{len(client.calls)} call(s), {seconds:.1f} s, {tokens} completion tokens{rate}; "
        f"{modes.get(client.mode or '', 'structured output: unknown')}"
    )
    if problem:
        return Check(
            "LLM completion",
            "WARN",
            f"{detail}; the answer failed validation ({problem})",
            "a small model needs structured output: use a server that takes response_format",
        )
    return Check("LLM completion", "OK", detail)


def check_minedojo(python: str | None) -> list[Check]:
    python = python or os.environ.get(ENV_PYTHON)
    if not python:
        return [
            Check(
                "minedojo python",
                "INFO",
                "not configured (optional backend)",
                f"for MineDojo: --minedojo-python PATH or {ENV_PYTHON} (docs/minedojo.md)",
            )
        ]
    if not os.path.exists(python):
        return [
            Check(
                "minedojo python",
                "FAIL",
                f"{python} does not exist",
                "point it at the python of the venv where minedojo is installed",
            )
        ]
    checks = []
    probe = _run([python, "-c", "import sys; print(sys.version.split()[0])"])
    if probe is None:
        return [Check("minedojo python", "FAIL", f"{python} does not run", "reinstall that venv")]
    checks.append(Check("minedojo python", "OK", f"{python} (Python {probe})"))
    found = _run([python, "-c", "import minedojo, numpy; print(numpy.__version__)"])
    checks.append(
        Check("minedojo import", "OK", f"imports (numpy {found})")
        if found is not None
        else Check(
            "minedojo import",
            "FAIL",
            "`import minedojo` fails there",
            "pip install minedojo in that venv (gym==0.21, numpy<2)",
        )
    )
    checks.append(check_java())
    return checks


def check_java() -> Check:
    java = shutil.which("java")
    if java is None:
        return Check("java", "FAIL", "not found", "install a Java 8 JDK (MineDojo needs JDK 8)")
    result = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    first = (result.stderr or result.stdout).splitlines()[0] if result.returncode == 0 else ""
    if '"1.8' not in first:
        return Check("java", "WARN", first or "unknown version", "MineDojo needs Java 8 (1.8)")
    return Check("java", "OK", first)


def _run(command: list[str]) -> str | None:
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.strip() if result.returncode == 0 else None


def run_doctor(
    sessions_dir: str | None = None,
    llm_base_url: str | None = None,
    llm_model: str | None = None,
    llm_config: str | None = None,
    minedojo_python: str | None = None,
    llm_timeout: float | None = None,
    llm_structured: str | None = None,
) -> list[Check]:
    """All checks, in order."""
    return [
        check_python(),
        *check_packages(),
        *check_devices(),
        check_sandbox(),
        check_sessions(sessions_dir),
        check_config(),
        *check_llm(llm_base_url, llm_model, llm_config, llm_timeout, llm_structured),
        *check_minedojo(minedojo_python),
    ]
