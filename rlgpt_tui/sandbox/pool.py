"""Sandbox workers seen from the app: start them, talk to them, enforce budgets from outside.

:class:`Worker` is one confined process (:mod:`rlgpt_tui.sandbox.worker`). The app talks to
it over two pipes and watches a shared slot saying which env's call runs and since when:

- a call that runs past its wall-clock budget (plus a grace) gets the worker killed; the
  call ends ``timeout``;
- a worker that dies by a signal, exits, floods or breaks the protocol ends its running
  call ``crashed`` (``memory`` when it ran out of memory);
- the other calls that lived in a killed worker end ``lost``; a fresh worker takes over
  with the same programs, and training goes on.

Requests and replies are the typed messages of :mod:`rlgpt_tui.sandbox.protocol`; replies
are JSON, checked for shape; the app never unpickles what a worker wrote. Calls for a batch
of envs over several workers are :mod:`rlgpt_tui.sandbox.scheduler`'s.

:func:`validate_code` / :func:`validate_reward` compile and dry-run code in a process-wide
validation worker (nothing untrusted is parsed, compiled or run in the app).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import mmap
import os
import pickle
import select
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from rlgpt_tui.sandbox.boundary import (
    UNSAFE_ENV,
    Confinement,
    support_problem,
    unsafe_allowed,
    worker_environment,
)
from rlgpt_tui.sandbox.protocol import (
    DEBUG_ENV,
    HEADER,
    MAX_REPLY,
    SLOT,
    SLOT_SIZE,
    ActionProgram,
    Hello,
    Load,
    Loaded,
    ProtocolError,
    Ready,
    Request,
    RewardProgram,
)
from rlgpt_tui.skills.checker import CodeValidationError
from rlgpt_tui.skills.outcomes import CallEnd, safe_text
from rlgpt_tui.skills.runtime import (
    CodedAction,
    check_source,
    recorded_views,
)

WORKERS_ENV = "RLGPT_WORKERS"
START_SECONDS = 60.0  # a worker imports numpy and this package before it answers
GRACE_SECONDS = 1.0  # past a call's own budget (its worker's CPU time) before the app kills it
_POLL_SECONDS = 0.02


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100  # /proc's unit


def _cpu_seconds(pid: int) -> float | None:
    """A process's CPU time (user and system, all its threads) from ``/proc``, as its own
    ``time.process_time()`` counts it; None where that cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
    except (OSError, IndexError, ValueError):
        return None


class SandboxUnavailable(RuntimeError):
    """Untrusted code cannot run here (no boundary, or no worker could start)."""


@dataclass
class WorkerDied(Exception):  # noqa: N818 - reads as what happened
    """A worker was killed or died while serving a request."""

    end: CallEnd
    env: int | None  # the env whose call was running, when known
    detail: str


def default_workers() -> int:
    """Workers for a batch of envs: ``RLGPT_WORKERS``, else one per core but one."""
    configured = os.environ.get(WORKERS_ENV, "").strip()
    if configured:
        try:
            value = int(configured)
        except ValueError:
            raise SandboxUnavailable(
                f"{WORKERS_ENV}={configured!r} is not a whole number: set it to e.g. 2"
            ) from None
        if value < 1:
            raise SandboxUnavailable(f"{WORKERS_ENV} must be at least 1, not {value}")
        return value
    return max(1, (os.cpu_count() or 2) - 1)


def boundary_mode() -> bool:
    """True when workers load the syscall filter; raises when untrusted code may not run."""
    problem = support_problem()
    if problem is None:
        return True
    if unsafe_allowed():
        if not _warned.is_set():
            _warned.set()
            print(
                f"WARNING: {problem}; running untrusted code WITHOUT the syscall filter "
                "(--unsafe-local-code): it can read and write your files",
                file=sys.stderr,
            )
        return False
    raise SandboxUnavailable(
        f"{problem}: LLM- or person-written code is not run outside the sandbox; "
        f"install libseccomp, or pass --unsafe-local-code ({UNSAFE_ENV}=1) to run it anyway"
    )


_warned = threading.Event()
_live: set[Worker] = set()
_live_lock = threading.Lock()


class Worker:
    """One sandbox worker process, its pipes and its shared slot."""

    def __init__(self, confinement: Confinement | None = None):
        self.confinement = confinement or Confinement()
        self.filtered = boundary_mode()
        self.process: subprocess.Popen | None = None
        self._to: int = -1
        self._from: int = -1
        self._slot: mmap.mmap | None = None
        self._start()

    # -- life ------------------------------------------------------------------------------
    def _start(self) -> None:
        child_in, self._to = os.pipe()
        self._from, child_out = os.pipe()
        slot_fd = os.memfd_create("rlgpt-worker-slot")
        os.ftruncate(slot_fd, SLOT_SIZE)
        self._slot = mmap.mmap(slot_fd, SLOT_SIZE)
        SLOT.pack_into(self._slot, 0, -1.0, 0.0, 0.0)
        fds = (child_in, child_out, slot_fd)
        debug = os.environ.get(DEBUG_ENV) == "1"
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-s", "-m", "rlgpt_tui.sandbox.worker", *map(str, fds)],
                pass_fds=fds,
                env=worker_environment() | ({DEBUG_ENV: "1"} if debug else {}),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=None if debug else subprocess.DEVNULL,
                start_new_session=True,  # its own process group: killed as one
                cwd="/",
            )
        finally:
            for fd in fds:
                os.close(fd)
        for fd in (self._to, self._from):
            os.set_blocking(fd, False)
        with _live_lock:
            _live.add(self)
        self._ready = False
        try:
            self.send(Hello(self.confinement, self.filtered), time.monotonic() + START_SECONDS)
        except WorkerDied as died:
            self.kill()
            raise SandboxUnavailable(
                f"a sandbox worker could not start ({died.detail}); run `rlgpt-tui doctor`"
            ) from None

    def wait_ready(self) -> None:
        """Wait for the worker's ``ready`` (it imports and confines itself first); workers
        started together get ready together."""
        if self._ready:
            return
        try:
            ready = self.receive(time.monotonic() + START_SECONDS, None)
        except WorkerDied as died:
            self.kill()
            raise SandboxUnavailable(
                f"a sandbox worker could not start ({died.detail}); run `rlgpt-tui doctor`"
            ) from None
        try:
            Ready.parse(ready)
        except ProtocolError:
            self.kill()
            raise SandboxUnavailable("a sandbox worker answered its start with nonsense") from None
        self._ready = True

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """Kill the worker's process group and release its pipes."""
        process, self.process = self.process, None
        if process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
        for fd in (self._to, self._from):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._to = self._from = -1
        if self._slot is not None:
            self._slot.close()
            self._slot = None
        with _live_lock:
            _live.discard(self)

    # -- talking -----------------------------------------------------------------------------
    def request(self, payload: Request, seconds: float, call_seconds: float | None = None) -> Any:
        """Send ``payload``; its reply (JSON data, for the reply type's ``parse``).
        ``seconds`` bounds the whole request; a call that runs over ``call_seconds``
        (+ grace) gets the worker killed. Raises :class:`WorkerDied` (the worker is then
        dead; start a new one)."""
        self.wait_ready()
        deadline = time.monotonic() + seconds
        try:
            self.send(payload, deadline)
            reply = self.receive(deadline, call_seconds)
        except WorkerDied:
            self.kill()
            raise
        if not isinstance(reply, dict):
            self.kill()
            raise WorkerDied(CallEnd.CRASHED, None, "the worker's reply is not an object")
        return reply

    def send(self, payload: Request | Hello, deadline: float) -> None:
        """Write one request (the worker must be ready for it: see :meth:`request`)."""
        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(HEADER.pack(len(data)) + data)
        while view:
            self._wait(select.POLLOUT, self._to, deadline, None)
            try:
                view = view[os.write(self._to, view) :]
            except BlockingIOError:
                continue
            except OSError as error:  # the worker is gone
                raise self._death(f"its pipe broke ({error.strerror})") from None

    def receive(self, deadline: float, call_seconds: float | None) -> Any:
        """Read one reply, watching the running call's clock (raises :class:`WorkerDied`)."""
        header = self._read(HEADER.size, deadline, call_seconds)
        (size,) = HEADER.unpack(header)
        if size > MAX_REPLY:
            raise WorkerDied(CallEnd.CRASHED, self._running_env(), "it flooded the app")
        body = self._read(size, deadline, call_seconds)
        try:
            return json.loads(body)
        except (ValueError, RecursionError):
            raise WorkerDied(CallEnd.CRASHED, None, "its reply is not JSON") from None

    def _read(self, size: int, deadline: float, call_seconds: float | None) -> bytes:
        chunks, left = [], size
        while left:
            self._wait(select.POLLIN, self._from, deadline, call_seconds)
            try:
                chunk = os.read(self._from, min(left, 1 << 20))
            except BlockingIOError:
                continue
            if not chunk:
                raise self._death("it exited")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _wait(self, event: int, fd: int, deadline: float, call_seconds: float | None) -> None:
        poller = select.poll()
        poller.register(fd, event | select.POLLHUP | select.POLLERR)
        slot = self._slot
        assert slot is not None  # mapped while the worker runs
        while True:
            if poller.poll(_POLL_SECONDS * 1000):
                return
            now = time.monotonic()
            env, started, cpu_started = SLOT.unpack_from(slot, 0)
            if call_seconds is not None and env >= 0 and now - started > call_seconds:
                self._check_call(int(env), now - started, cpu_started, call_seconds)
            if now > deadline:
                raise WorkerDied(
                    CallEnd.TIMEOUT, self._running_env(), "killed: the request took too long"
                )
            if not self.alive:
                raise self._death("it died")

    def _check_call(self, env: int, wall: float, cpu_started: float, call_seconds: float) -> None:
        """Kill the worker whose call for ``env`` has run ``wall`` seconds, more than
        ``call_seconds``, if it also used that much CPU: time it spent waiting for a busy
        machine's cores does not count, as inside the worker. (A worker that is stalled
        rather than busy is left to the request's deadline; where its CPU time cannot be
        read, the wall clock decides.) A worker that a busy machine keeps waiting would
        otherwise be killed for time it never ran, and a killed worker's other calls end
        ``lost``."""
        used = _cpu_seconds(self.process.pid) if self.process is not None else None
        if used is None:
            detail = f"ran {wall:.1f} s"
        elif used - cpu_started > call_seconds:
            detail = f"used {used - cpu_started:.1f} s of CPU"
        else:
            return
        budget = call_seconds - GRACE_SECONDS
        raise WorkerDied(CallEnd.TIMEOUT, env, f"killed: {detail}, over its budget of {budget:g} s")

    def _running_env(self) -> int | None:
        if self._slot is None:
            return None
        env = SLOT.unpack_from(self._slot, 0)[0]
        return int(env) if env >= 0 else None

    def _death(self, what: str) -> WorkerDied:
        env = self._running_env()
        code = None
        if self.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self.process.wait(timeout=2)
        if code == 3:
            return WorkerDied(CallEnd.MEMORY, env, "the worker ran out of memory")
        if code is not None and code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else -code
            end = CallEnd.TIMEOUT if -code == signal.SIGXCPU else CallEnd.CRASHED
            return WorkerDied(end, env, f"the worker died by {name}")
        return WorkerDied(CallEnd.CRASHED, env, f"the worker {what} (exit code {code})")


@atexit.register
def _kill_all_workers() -> None:
    with _live_lock:
        workers = list(_live)
    for worker in workers:
        worker.kill()


# -- validation ------------------------------------------------------------------------------
_validator: Worker | None = None
_validator_lock = threading.Lock()
#: validation round trips (compile + dry run in the validation worker) per coded action
#: name, in this process: what "validate once" is measured by
validation_round_trips: Counter = Counter()


def _validation_request(payload: Load, seconds: float, call_seconds: float | None = None) -> Loaded:
    """Send ``payload`` to the validation worker (one retry if it crashed on its own)."""
    global _validator
    with _validator_lock:
        for attempt in range(2):
            if _validator is None or not _validator.alive:
                _validator = Worker()
            try:
                reply = _validator.request(payload, seconds, call_seconds)
            except WorkerDied as died:
                _validator = None
                if attempt == 1 or died.end is not CallEnd.CRASHED or died.env is not None:
                    raise
                continue
            try:
                return Loaded.parse(reply)
            except ProtocolError as error:
                _validator.kill()
                _validator = None
                raise WorkerDied(CallEnd.CRASHED, None, str(error)) from None
        raise AssertionError("unreachable")


def action_program(
    slot: int, action: CodedAction, dry_run: bool, memory_key: str | None = None
) -> ActionProgram:
    """What a worker loads to run ``action`` in ``slot`` (``dry_run``: once per recorded
    view, at load; ``memory_key``: the ``ctx.memory`` its calls share in an episode)."""
    return ActionProgram(
        slot, action.name, action.source, action.limits, dry_run, memory_key, action.policies
    )


def validate_code(actions: list[CodedAction], dry_run: bool = True) -> None:
    """Compile (allow-lists, syntax) and dry-run coded actions in the validation worker.

    Raises :class:`CodeValidationError` naming the problem and the fix; a worker killed
    for time or memory, or that crashed, is a validation failure too.
    """
    seconds = 10.0 + (len(recorded_views()) * 2 * max(a.limits.seconds for a in actions))
    payload = Load([action_program(i, a, dry_run) for i, a in enumerate(actions)])
    validation_round_trips.update(a.name for a in actions)
    try:
        call_seconds = max(a.limits.seconds for a in actions) + GRACE_SECONDS
        reply = _validation_request(payload, seconds * len(actions), call_seconds)
    except WorkerDied as died:
        names = ", ".join(a.name for a in actions)
        where = f" on recorded view {died.env}" if died.env is not None else ""
        raise CodeValidationError(
            f"coded action {names}: its dry run{where} ended {died.end.value} "
            f"({died.detail}); fix the code"
        ) from None
    errors = list(reply.errors.values())
    if errors:
        raise CodeValidationError(safe_text(errors[0], 2000))


def validate_reward(source: str, ticks: int, seconds: float) -> None:
    """Compile and dry-run reward code in the validation worker (see :func:`validate_code`)."""
    check_source("reward code", source)
    payload = Load(reward=RewardProgram(source, ticks, seconds, dry_run=True))
    try:
        reply = _validation_request(
            payload, 10.0 + len(recorded_views()) * 2 * seconds, seconds + GRACE_SECONDS
        )
    except WorkerDied as died:
        raise CodeValidationError(
            f"reward code: validation ended {died.end.value} ({died.detail}); fix the code"
        ) from None
    if reply.reward:
        raise CodeValidationError(safe_text(reply.reward, 2000))
