"""One MineDojo worker process: start, health check, timed requests, restart, shutdown.

The worker runs in the interpreter the user names (MineDojo's own venv). Each process gets
its own process group, so a timeout or shutdown kills Minecraft's Java child with it and
leaves no orphans.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import signal
import subprocess
import time
import weakref
from pathlib import Path
from typing import Any

from rlgpt_tui.envs.minedojo.worker import read_message, write_message

WORKER_SCRIPT = Path(__file__).with_name("worker.py")
ENV_PYTHON = "RLGPT_MINEDOJO_PYTHON"
_LIVE: weakref.WeakSet[WorkerProcess] = weakref.WeakSet()


class MineDojoError(RuntimeError):
    """The MineDojo worker could not be used; one line naming the fix."""


def minedojo_interpreter(python: str | None = None) -> str:
    """MineDojo's interpreter (``python``, else ``$RLGPT_MINEDOJO_PYTHON``); a
    MineDojoError naming the fix when it is not set or does not exist."""
    python = python or os.environ.get(ENV_PYTHON)
    if not python:
        raise MineDojoError(
            f"no MineDojo interpreter: pass --minedojo-python /path/to/venv/bin/python or "
            f"set {ENV_PYTHON} (see docs/minedojo.md)"
        )
    if not Path(python).exists():
        raise MineDojoError(
            f"MineDojo interpreter {python} does not exist: point "
            f"--minedojo-python at the python of the venv where minedojo is installed"
        )
    return python


class WorkerTimeout(MineDojoError):
    """A request got no answer in time (the worker was killed)."""


class WorkerCrashed(MineDojoError):
    """The worker process ended (Minecraft crashed, or it was killed)."""


class _TimedReader:
    """A file-like reader over a pipe that fails after ``deadline`` instead of hanging."""

    def __init__(self, fd: int, deadline: float):
        self.fd, self.deadline = fd, deadline

    def read(self, size: int) -> bytes:
        left = self.deadline - time.monotonic()
        if left <= 0 or not select.select([self.fd], [], [], left)[0]:
            raise TimeoutError
        return os.read(self.fd, size)


class WorkerProcess:
    """A worker on a pipe; ``request`` sends one message and waits for its answer."""

    def __init__(
        self,
        python: str | None = None,
        env: dict[str, str] | None = None,
        start_timeout: float = 60.0,
    ):
        self.python = minedojo_interpreter(python)
        self.extra_env = env or {}
        self.start_timeout = start_timeout
        self.process: subprocess.Popen | None = None
        self.restarts = 0
        self.start()
        _LIVE.add(self)

    def start(self) -> None:
        """Launch the worker and check it answers a ping."""
        self.process = subprocess.Popen(
            [self.python, str(WORKER_SCRIPT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=os.environ | self.extra_env,
            start_new_session=True,  # its own process group: Java children die with it
        )
        try:
            reply = self.request({"op": "ping"}, timeout=self.start_timeout)
        except MineDojoError as error:
            raise MineDojoError(
                f"the MineDojo worker did not start with {self.python} ({error}): check that "
                "this interpreter runs and has numpy (run `rlgpt-tui doctor`)"
            ) from None
        self.info = reply

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def request(self, message: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        """Send ``message``; the reply, or WorkerTimeout / WorkerCrashed (worker killed)."""
        process = self.process
        if process is None or not self.alive:
            raise WorkerCrashed("the MineDojo worker is not running")
        assert process.stdin is not None and process.stdout is not None  # both piped
        try:
            write_message(process.stdin, message)
            reply = read_message(_TimedReader(process.stdout.fileno(), time.monotonic() + timeout))
        except TimeoutError:
            self.kill()
            raise WorkerTimeout(
                f"MineDojo gave no answer to {message['op']!r} within {timeout:.0f} s"
            ) from None
        except (EOFError, BrokenPipeError, OSError):
            self.kill()
            raise WorkerCrashed(f"the MineDojo worker ended during {message['op']!r}") from None
        if not reply.get("ok"):
            raise MineDojoError(f"MineDojo {message['op']} failed: {reply.get('error')}")
        return reply

    def restart(self) -> None:
        self.kill()
        self.restarts += 1
        self.start()

    def kill(self) -> None:
        """Kill the worker's whole process group (Minecraft's JVM included)."""
        if self.process is None:
            return
        # the group outlives its leader when Minecraft's JVM is still running
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                # closing flushes what a dead worker never read: a broken pipe, not an error
                with contextlib.suppress(BrokenPipeError):
                    stream.close()

    def close(self, timeout: float = 10.0) -> None:
        """Ask the worker to close its env and exit; kill the group if it does not."""
        process = self.process
        if process is not None and self.alive:
            try:
                self.request({"op": "close"}, timeout=timeout)
                process.wait(timeout=timeout)
            except (MineDojoError, subprocess.TimeoutExpired):
                pass
        self.kill()
        _LIVE.discard(self)


@atexit.register
def _close_all() -> None:
    """No orphan workers when rlgpt exits."""
    for worker in list(_LIVE):
        worker.kill()


__all__ = ["MineDojoError", "WorkerCrashed", "WorkerProcess", "WorkerTimeout"]
