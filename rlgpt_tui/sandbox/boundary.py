"""The operating-system boundary around untrusted code: what a sandbox worker does to itself.

A worker process (see :mod:`rlgpt_tui.sandbox.worker`) imports everything it needs, then
calls :func:`confine` before it compiles or runs a line of untrusted code. Confinement
cannot be undone:

- resource limits: address space (``RLIMIT_AS``), CPU time (``RLIMIT_CPU``, a backstop:
  the parent enforces the wall clock of each call), no file writes (``RLIMIT_FSIZE`` 0),
  no new processes (``RLIMIT_NPROC`` 0), no core dumps;
- a worker started as root becomes ``nobody``;
- the parent's death kills it (``PR_SET_PDEATHSIG``);
- no new privileges, then a seccomp-bpf filter (libseccomp, through ``pyseccomp``) that
  allows only what a Python interpreter needs to compute and to talk over the pipes it was
  given: memory management, reading and writing already-open descriptors, clocks, futexes,
  signals to itself, exit. Everything else fails with ``EPERM``: opening any file, sockets,
  ``execve``, ``fork``/``clone``/``vfork``, ``ptrace``, signals to other processes,
  raising limits, ``prctl``, ``mount``, ``memfd_create``, ``io_uring``, ``bpf`` ...

:func:`support_problem` says whether this machine can do it (Linux with libseccomp). The
worker's environment is built from nothing by the parent (no secrets); see
:func:`worker_environment`.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

import rlgpt_tui

#: The opt-out that runs workers without the filter where it is unavailable (loud).
UNSAFE_ENV = "RLGPT_UNSAFE_LOCAL_CODE"

# Syscalls a confined worker may make (names libseccomp resolves per architecture; names
# that do not exist on this architecture are skipped).
ALLOWED_SYSCALLS: tuple[str, ...] = (
    # talk over descriptors it already holds (pipes, /dev/null, its shared memory)
    "read",
    "readv",
    "write",
    "writev",
    "pread64",
    "lseek",
    "close",
    "fstat",
    "fcntl",
    "dup",
    "poll",
    "ppoll",
    "select",
    "pselect6",
    # memory
    "brk",
    "mmap",
    "munmap",
    "mremap",
    "mprotect",
    "madvise",
    # threads' primitives the interpreter uses in one thread, clocks, randomness
    "futex",
    "sched_yield",
    "sched_getaffinity",
    "clock_gettime",
    "clock_getres",
    "clock_nanosleep",
    "nanosleep",
    "gettimeofday",
    "getrandom",
    "getrusage",
    "times",
    "rt_sigaction",
    "rt_sigprocmask",
    "rt_sigreturn",
    "sigaltstack",
    "restart_syscall",
    # identity (harmless reads)
    "getpid",
    "gettid",
    "getppid",
    "getuid",
    "geteuid",
    "getgid",
    "getegid",
    "getcwd",
    "uname",
    "exit",
    "exit_group",
)


@dataclass(frozen=True)
class Confinement:
    """The limits a worker puts on itself."""

    memory_bytes: int = 1 << 30  # address space (virtual memory), 1 GiB
    cpu_seconds: int = 4 * 3600  # a backstop: the parent enforces each call's wall clock


def support_problem() -> str | None:
    """Why this machine cannot confine workers, or None when it can."""
    if not sys.platform.startswith("linux"):
        return f"the sandbox needs Linux (seccomp); this is {sys.platform}"
    try:
        import pyseccomp  # noqa: F401 - optional (Linux); loads libseccomp.so.2
    except (ImportError, RuntimeError, OSError) as error:
        return f"the sandbox needs libseccomp and pyseccomp ({error})"
    return None


def unsafe_allowed() -> bool:
    """True when the person opted out of the boundary (``--unsafe-local-code``)."""
    return os.environ.get(UNSAFE_ENV, "") == "1"


def worker_environment() -> dict[str, str]:
    """A worker's whole environment: what Python needs to import this package, no more."""
    package_root = str(Path(rlgpt_tui.__file__).resolve().parent.parent)
    return {
        "PYTHONPATH": package_root,
        "PYTHONHASHSEED": "0",  # set iteration order is the same in every worker and run
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
        "OPENBLAS_NUM_THREADS": "1",  # no BLAS threads: clone is not allowed once confined
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "LANG": "C.UTF-8",
    }


_PR_SET_PDEATHSIG = 1
_NOBODY = 65534


def _die_with_parent() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() == 1:  # the parent died before prctl took effect
        os._exit(1)


def _limit(kind: int, value: int) -> None:
    with contextlib.suppress(ValueError, OSError):  # a lower hard limit stays in force
        hard = resource.getrlimit(kind)[1]
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(kind, (value, value))


def confine(limits: Confinement, filtered: bool = True) -> None:
    """Restrict this process for good. ``filtered=False`` (the unsafe opt-out) skips the
    syscall filter and keeps the resource limits."""
    if filtered:
        import pyseccomp  # noqa: F401 - loaded while this process may still read files
    _die_with_parent()
    _limit(resource.RLIMIT_AS, limits.memory_bytes)
    _limit(resource.RLIMIT_CPU, limits.cpu_seconds)
    _limit(resource.RLIMIT_FSIZE, 0)
    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_NPROC, 0)
    if os.getuid() == 0:  # root ignores RLIMIT_NPROC and owns every file: be nobody
        os.setgroups([])
        os.setgid(_NOBODY)
        os.setuid(_NOBODY)
    if filtered:
        _load_filter()


def _load_filter() -> None:
    import pyseccomp as seccomp  # optional: Linux with libseccomp (see support_problem)

    denied = seccomp.ERRNO(1)  # EPERM: Python raises PermissionError, the worker lives on
    rules = seccomp.SyscallFilter(denied)  # no-new-privileges is set by libseccomp
    for name in ALLOWED_SYSCALLS:
        with contextlib.suppress(OSError, ValueError):  # not on this architecture
            rules.add_rule(seccomp.ALLOW, name)
    me = os.getpid()
    # signals only to itself (abort, faulthandler); never to the parent or other workers
    rules.add_rule(seccomp.ALLOW, "kill", seccomp.Arg(0, seccomp.EQ, me))
    rules.add_rule(seccomp.ALLOW, "tgkill", seccomp.Arg(0, seccomp.EQ, me))
    # read its own limits, never set them
    rules.add_rule(seccomp.ALLOW, "prlimit64", seccomp.Arg(2, seccomp.EQ, 0))
    rules.load()
