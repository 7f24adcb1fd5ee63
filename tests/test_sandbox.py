"""The OS boundary around untrusted code, tried as an attacker would.

Two layers are tested apart: the boundary itself (a process confined exactly as a worker
confines itself, running plain Python with no allow-list in the way), and the whole path
a coded action takes (validation, then calls in sandbox workers), with a corpus of hostile
and broken code. Each case checks concrete results: no canary file, no connection
accepted by a listener here, no process spawned, the secret never shows, and the host
goes on and records a typed reason.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from rlgpt_tui.envs.base import encode_views
from rlgpt_tui.rl.vec_env import CodedActionVecEnv
from rlgpt_tui.sandbox import Worker, worker_environment
from rlgpt_tui.sandbox.protocol import SLOT, Rewards
from rlgpt_tui.sandbox.serving import NO_REWARD, WorkerState
from rlgpt_tui.skills.checker import CodeValidationError
from rlgpt_tui.skills.outcomes import CallEnd
from rlgpt_tui.skills.runtime import CodedActionLimits, recorded_views
from rlgpt_tui.skills.validation import validate
from rlgpt_tui.tasks.catalog import get_task
from tests.still_world import StillWorld, run_call

SECRET = "sk-test-" + "0123456789abcdef" * 2


@pytest.fixture
def listener():
    """A TCP listener on loopback that records whether anyone connected."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.setblocking(False)
    yield server
    server.close()


def accepted(server: socket.socket) -> bool:
    try:
        server.accept()[0].close()
        return True
    except BlockingIOError:
        return False


ATTACKS = """
import json, os, socket, signal, ctypes
results = {}
def attempt(name, action):
    try:
        results[name] = repr(action())[:200]
    except BaseException as error:
        results[name] = type(error).__name__
attempt("read_secret", lambda: open(SECRET_PATH).read())
attempt("write_canary", lambda: open(CANARY, "w").write("x"))
attempt("list_home", lambda: os.listdir(os.path.expanduser("~")))
attempt("list_root", lambda: os.listdir("/"))
attempt("connect", lambda: socket.socket().connect(("127.0.0.1", PORT)))
attempt("exec_sh", lambda: os.execv("/bin/sh", ["/bin/sh", "-c", "touch " + CANARY]))
attempt("fork", lambda: os.fork())
attempt("system", lambda: os.system("touch " + CANARY))
attempt("kill_parent", lambda: os.kill(os.getppid(), signal.SIGTERM))
attempt("kill_group", lambda: os.kill(0, signal.SIGTERM))
attempt("environ", lambda: open("/proc/self/environ").read())
attempt("raise_limit", lambda: __import__("resource").setrlimit(
    __import__("resource").RLIMIT_AS, (-1, -1)))
attempt("ptrace", lambda: ctypes.CDLL(None).ptrace(16, os.getppid(), 0, 0))
attempt("big_alloc", lambda: len(bytearray(3 << 30)))
attempt("compute", lambda: sum(range(1000)))
os.write(1, json.dumps(results).encode())
"""


def run_confined(tmp_path: Path, port: int) -> dict[str, str]:
    """Plain Python, confined as a worker confines itself, running :data:`ATTACKS`."""
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    canary = tmp_path / "canary"
    prelude = (
        "import os, socket, signal, ctypes, json, resource\n"
        "from rlgpt_tui.sandbox import Confinement, confine\n"
        f"SECRET_PATH, CANARY, PORT = {str(secret)!r}, {str(canary)!r}, {port}\n"
        "confine(Confinement())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(ATTACKS)],
        env=worker_environment() | {"OPENAI_API_KEY": SECRET},
        capture_output=True,
        timeout=60,
    )
    assert not canary.exists()
    assert SECRET.encode() not in done.stdout + done.stderr
    return json.loads(done.stdout)


def test_a_confined_process_can_compute_and_nothing_else(tmp_path, listener) -> None:
    results = run_confined(tmp_path, listener.getsockname()[1])
    assert results["compute"] == "499500"
    denied = [
        "read_secret",
        "write_canary",
        "list_home",
        "list_root",
        "connect",
        "exec_sh",
        "fork",
        "kill_parent",
        "kill_group",
        "environ",
    ]
    assert {name: results[name] for name in denied} == dict.fromkeys(denied, "PermissionError")
    assert results["raise_limit"] in {"PermissionError", "ValueError"}
    assert results["system"] != "0"  # no shell could be spawned
    assert results["ptrace"] == "-1"
    assert results["big_alloc"] == "MemoryError"
    assert not accepted(listener)


def test_workers_get_no_secrets_and_die_with_their_group(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    worker = Worker()
    pid = worker.process.pid
    environ = Path(f"/proc/{pid}/environ").read_bytes()
    assert SECRET.encode() not in environ
    assert set(k.decode() for k in (e.split(b"=")[0] for e in environ.split(b"\0") if e)) <= set(
        worker_environment()
    )
    assert os.getpgid(pid) == pid  # its own process group
    worker.kill()
    assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()


def code(body: str) -> str:
    return textwrap.dedent(body).strip() + "\n"


def corpus(canary: str, port: int) -> dict[str, tuple[str, set]]:
    """name -> (source, outcomes allowed: "rejected" at validation, or call ends)."""
    rejected = {"rejected"}
    return {
        "open_builtin": (f"def act(ctx):\n    open({canary!r}, 'w')\n    yield 0\n", rejected),
        "import_os": ("import os\ndef act(ctx):\n    yield os.system('id')\n", rejected),
        "import_socket": (
            f"import socket\ndef act(ctx):\n    socket.create_connection(('127.0.0.1', {port}))"
            "\n    yield 0\n",
            rejected,
        ),
        "import_subprocess": (
            "import subprocess\ndef act(ctx):\n    subprocess.run(['true'])\n    yield 0\n",
            rejected,
        ),
        "math_loader": (
            "from math import __loader__ as ldr\ndef act(ctx):\n"
            "    ldr.load_module('posix')\n    yield 0\n",
            rejected,
        ),
        "math_spec": ("from math import __spec__ as s\ndef act(ctx):\n    yield 0\n", rejected),
        "reassign_module": (
            "import math\ndef act(ctx):\n    math.sqrt = len\n    yield 0\n",
            {CallEnd.RETURNED, CallEnd.ERROR},
        ),
        "class_walk": ("def act(ctx):\n    yield ().__class__.__bases__[0]\n", rejected),
        "generator_frame": (
            "def act(ctx):\n    g = (i for i in [1])\n    yield g.gi_frame.f_globals\n",
            rejected,
        ),
        "unicode_open": (f"def act(ctx):\n    ｏｐｅｎ({canary!r}, 'w')\n    yield 0\n", rejected),
        "exec_compile": ("def act(ctx):\n    exec('x = 1')\n    yield 0\n", rejected),
        "getattr_trick": ("def act(ctx):\n    yield getattr(ctx, 'view')\n", rejected),
        "system_exit": ("def act(ctx):\n    yield 0\n    raise SystemExit(1)\n", rejected),
        "generator_exit": ("def act(ctx):\n    yield 0\n    raise GeneratorExit\n", rejected),
        "catch_all": (
            "def act(ctx):\n    try:\n        yield 0\n    except BaseException:\n        pass\n",
            rejected,
        ),
        "very_long_source": ("X = 1\n" * 20_000 + "def act(ctx):\n    yield 0\n", rejected),
        "nested_parentheses": (
            "def act(ctx):\n    yield " + "(" * 5000 + "0" + ")" * 5000 + "\n",
            rejected,
        ),
        "endless_loop": (
            "def act(ctx):\n    yield 0\n    while True:\n        pass\n",
            {CallEnd.LOOP_BUDGET},
        ),
        "recursion": (
            "def f(n):\n    return f(n + 1)\ndef act(ctx):\n    yield 0\n    yield f(0)\n",
            {CallEnd.LOOP_BUDGET, CallEnd.ERROR},
        ),
        "big_int_tower": (
            "def act(ctx):\n    yield 0\n    x = 9\n"
            "    yield ((((((((x ** 8) ** 8) ** 8) ** 8) ** 8) ** 8) ** 8) ** 8) ** 8\n",
            {CallEnd.TIMEOUT},
        ),
        "squaring_loop": (
            "def act(ctx):\n    yield 0\n    x = 3\n    for i in range(40):\n        x = x * x\n"
            "    yield 0\n",
            {CallEnd.TIMEOUT, CallEnd.MEMORY},
        ),
        "huge_list": (
            "def act(ctx):\n    yield 0\n    x = [0] * 1000000\n    y = x * 1000\n    yield 0\n",
            {CallEnd.MEMORY},
        ),
        "self_extending_list": (
            "def act(ctx):\n    yield 0\n    a = [1]\n    while True:\n        a.extend(a)\n",
            {CallEnd.MEMORY, CallEnd.TIMEOUT},
        ),
        "growth_across_calls": (
            "def act(ctx):\n    pile = ctx.memory.setdefault('pile', [])\n"
            "    pile.append('x' * 1000000 * 60)\n    yield 0\n",
            # 60 MB a call: on a machine busy with other work its page faults once took more
            # than the call's 0.3 s of CPU (a CI run on a clean clone): ended, and recorded
            {CallEnd.RETURNED, CallEnd.MEMORY, CallEnd.TIMEOUT},
        ),
        "deeply_nested_data": (
            "def act(ctx):\n    yield 0\n    t = ()\n    for i in range(19000):\n"
            "        t = (t,)\n    yield len({t: 1}) - 1\n",
            {CallEnd.ERROR, CallEnd.CRASHED, CallEnd.RETURNED},
        ),
        "bad_yield_object": ("def act(ctx):\n    yield ctx\n", {CallEnd.INVALID}),
        "bad_yield_number": ("def act(ctx):\n    yield 99\n", {CallEnd.INVALID}),
        "bad_yield_bool": ("def act(ctx):\n    yield True\n", {CallEnd.INVALID}),
        # the remembered map is kept out of the code's reach: replacing ctx.memory cannot
        # break ctx.recall
        "ctx_memory_corrupted": (
            "def act(ctx):\n    ctx.memory = 7\n    yield 0\n    ctx.recall('tree')\n    yield 0\n",
            {CallEnd.RETURNED},
        ),
        "ctx_view_corrupted": (
            "def act(ctx):\n    ctx.view = 'nothing'\n    yield 0\n    yield ctx.nearest('tree')\n",
            {CallEnd.ERROR, CallEnd.INVALID},
        ),
        "endless_finally": (
            "def act(ctx):\n    try:\n        while True:\n            yield 0\n"
            "    finally:\n        while True:\n            pass\n",
            {CallEnd.STEP_BUDGET},
        ),
        "big_int_in_finally": (
            "def act(ctx):\n    try:\n        while True:\n            yield 0\n    finally:\n"
            "        x = 9\n"
            "        y = ((((((((x ** 8) ** 8) ** 8) ** 8) ** 8) ** 8) ** 8) ** 8)\n",
            {CallEnd.TIMEOUT},  # its finally hangs in C: the worker is killed
        ),
        "lone_surrogate_error": (
            "def act(ctx):\n    yield 0\n    raise ValueError('bad \\udc80 text \\x00 here')\n",
            {CallEnd.ERROR},
        ),
        "dry_run_detector": (
            "def act(ctx):\n    yield 0\n    if ctx.view.step > 100000 or ctx.view.health < 100:\n"
            "        yield ctx.view.inventory['nothing']\n",
            {CallEnd.ERROR},
        ),
    }


@pytest.mark.slow
def test_hostile_corpus_is_rejected_or_ends_with_a_recorded_reason(tmp_path, listener) -> None:
    canary = tmp_path / "canary"
    cases = corpus(str(canary), listener.getsockname()[1])
    outcomes = {}
    limits = CodedActionLimits(max_steps=5, seconds=0.3)
    for name, (source, allowed) in cases.items():
        started = time.perf_counter()
        try:
            action = validate(name, source, limits=limits, dry_run=False)
        except CodeValidationError as error:
            assert "\n" not in str(error).strip() or len(str(error)) < 2000
            outcomes[name] = "rejected"
        else:
            _, record, _ = run_call(action)
            outcomes[name] = record.end
            record.detail.encode("utf-8")  # storable: no lone surrogates
            assert "\x00" not in record.detail
        assert outcomes[name] in allowed, (name, outcomes[name])
        assert time.perf_counter() - started < 20, name
    assert not canary.exists()
    assert not accepted(listener)
    # the host is untouched: its math module is its own, and SQLite stores every detail
    import math

    assert math.sqrt(16) == 4.0
    db = sqlite3.connect(tmp_path / "reasons.db")
    db.execute("create table reasons (name text, reason text)")
    db.executemany("insert into reasons values (?, ?)", [(k, str(v)) for k, v in outcomes.items()])


@pytest.mark.slow
def test_training_goes_on_through_crashes_timeouts_and_memory_blowups() -> None:
    good = validate("wait", "def act(ctx):\n    yield 0\n    yield 0\n")
    hostile = {
        "tower": "def act(ctx):\n    yield 0\n    x = 9\n"
        "    yield ((((((((x ** 8) ** 8) ** 8) ** 8) ** 8) ** 8) ** 8) ** 8) ** 8\n",
        "hog": "def act(ctx):\n    yield 0\n    a = [1]\n    while True:\n        a.extend(a)\n",
        "boom": "def act(ctx):\n    yield 0\n    raise KeyError('x')\n",
    }
    # the hog gets time enough to reach the memory limit, however busy the machine
    limits = {"tower": 0.2, "hog": 10.0, "boom": 0.2}
    coded = [good] + [
        validate(n, s, limits=CodedActionLimits(seconds=limits[n]), dry_run=False)
        for n, s in hostile.items()
    ]
    task = get_task("collect_wood").model_copy(update={"horizon": 30})
    # one env per worker: a call never shares a worker with another action's call
    env = CodedActionVecEnv(StillWorld(4), task, coded=coded, primitives=["noop"], workers=4)
    env.reset()
    for round_ in range(4):
        env.step(np.array([1, 2, 3, 4]) if round_ % 2 == 0 else np.array([4, 3, 2, 1]))
    usage = env.coded_usage()
    env.close()
    reasons = {name: usage["actions"][name]["end_reasons"] for name in ["wait", *hostile]}
    assert reasons["wait"] == {"returned": 4}
    assert reasons["tower"].get("timeout", 0) >= 1
    assert reasons["hog"].get("memory", 0) >= 1
    assert reasons["boom"] == {"error": 4}
    assert usage["worker_restarts"] >= 2
    assert env.samples == env.world.steps_taken


def test_the_call_after_a_worker_restart_runs_in_the_fresh_worker() -> None:
    # one worker: the tower gets it killed; the next call, queued before the fresh worker
    # existed, must run there (it acts), not vanish as "lost"
    tower = validate(
        "tower",
        "def act(ctx):\n    yield 0\n    x = 9\n"
        "    yield ((((((((x ** 8) ** 8) ** 8) ** 8) ** 8) ** 8) ** 8) ** 8) ** 8\n",
        limits=CodedActionLimits(seconds=0.2),
        dry_run=False,
    )
    walk = validate("walk", "def act(ctx):\n    yield 1\n")
    world = StillWorld(1)
    task = get_task("collect_wood").model_copy(update={"horizon": 50})
    env = CodedActionVecEnv(world, task, [tower, walk], primitives=["noop"], workers=1)
    env.reset()
    env.step(np.array([1]))
    env.step(np.array([2]))
    usage = env.coded_usage()
    env.close()
    assert usage["actions"]["tower"]["end_reasons"] == {"timeout": 1}
    assert usage["actions"]["walk"]["end_reasons"] == {"returned": 1}
    assert world.history == [[0, 1]] and usage["worker_restarts"] == 1


@pytest.mark.parametrize(
    ("line", "hint"),
    [
        ('yield from ctx.do("do")', "do is a primitive action: `yield Action.DO`"),
        ('yield from ctx.collectt("tree")', "did you mean collect?"),
        ("wood = ctx.view.inventory.wood", "it is a dict: use ['wood'] or .get('wood', 0)"),
        (  # a 1.5B model's make_wood_pickaxe, twice
            'yield from ctx.place("wood_pickaxe")',
            "wood_pickaxe is made, not placed: use `yield from ctx.make('wood_pickaxe')`",
        ),
        (  # the same model's collect_stone, copying the prompt example's made-up world
            'bush = ctx.nearest("bush")',
            "unknown block or creature 'bush' in this world: use one of grass, water, stone",
        ),
        ('ok = ctx.has("berry")', "unknown inventory item 'berry' in this world: use one of"),
        (  # the same model's collect_stone from a library with make_wood_pickaxe in it
            'yield from ctx.make("stone")',
            "stone is collected, not made: use `yield from ctx.collect('stone')`",
        ),
        ('yield from ctx.make("table")', "table is placed, not made: use `yield from ctx.place("),
        ('yield from ctx.make("bed")', "cannot make 'bed'; use one of wood_pickaxe, stone_pickaxe"),
        (  # the same model's place_table, walking to a table before placing one
            'yield from ctx.go_to(ctx.nearest("table"))',
            "go_to got None: nothing of that name is in sight; check for None",
        ),
        ('t = ctx.recall("trees")', "'trees' in this world: did you mean tree? use one of"),
        (  # the same model's place_table, facing the tile beside it
            "yield from ctx.face((ctx.view.x + 1, ctx.view.y))",
            "the position is a pair: `x, y = ctx.view.position`",
        ),
    ],
)
def test_a_missing_attribute_names_what_to_use_instead(line: str, hint: str) -> None:
    """A 1.5B model wrote `ctx.do("do")` three times against a bare AttributeError: the
    error the model gets back now names the fix."""
    code = f"def act(ctx):\n    {line}\n    yield Action.NOOP\n"
    with pytest.raises(CodeValidationError) as error:
        validate("guess", code)
    assert hint in str(error.value)


def test_rewards_without_loaded_reward_code_fail_by_name() -> None:
    """Reward code that did not load in a worker: each env's reward is 0, failed as such
    (it failed as an AttributeError on None)."""
    state = WorkerState(bytearray(SLOT.size), time.monotonic)
    views = encode_views(recorded_views()[:2])
    reply = state.handle(Rewards([0, 1], views, views))
    assert reply.to_json() == {"values": [0.0, 0.0], "failures": {NO_REWARD: 2}}
