"""The sandbox: confined worker processes that run untrusted (LLM- or person-written) code.

Coded actions and reward code never run in the app's process. The app starts worker
processes (``python -m rlgpt_tui.sandbox.worker``) with an environment holding no secrets;
each imports what it needs, confines itself for good (resource limits, a seccomp filter:
no files, sockets, processes) and then serves the skill API to the code it runs. The
app enforces each call's budget from outside and restarts a worker that dies.

Inside (imported by nothing outside this package):

- ``pool``: the app's side of one worker, :class:`Worker`, and validation in a worker of
  its own (:func:`validate_code`, :func:`validate_reward`);
- ``scheduler``: :class:`CallScheduler`, coded-action calls (and reward code) for a batch
  of envs over several workers;
- ``worker``: the worker process's entry point;
- ``serving``: what a worker does with each request (runs the checked code under the skill
  API of :mod:`rlgpt_tui.skills.api`);
- ``boundary``: the operating-system confinement and the worker's environment;
- ``protocol``: the wire protocol between the two sides.

What code may contain is checked on its syntax tree by :mod:`rlgpt_tui.skills.checker`,
the layer below, which the skill API and the worker share.
"""

from rlgpt_tui.sandbox.boundary import (
    UNSAFE_ENV,
    Confinement,
    confine,
    support_problem,
    worker_environment,
)
from rlgpt_tui.sandbox.pool import (
    GRACE_SECONDS,
    SandboxUnavailable,
    Worker,
    default_workers,
    validate_code,
    validate_reward,
    validation_round_trips,
)
from rlgpt_tui.sandbox.scheduler import CallScheduler, RewardSpec

__all__ = [
    "GRACE_SECONDS",
    "UNSAFE_ENV",
    "CallScheduler",
    "Confinement",
    "RewardSpec",
    "SandboxUnavailable",
    "Worker",
    "confine",
    "default_workers",
    "support_problem",
    "validate_code",
    "validate_reward",
    "validation_round_trips",
    "worker_environment",
]
