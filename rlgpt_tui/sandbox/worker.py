"""The sandbox worker: a separate, confined process that runs untrusted code for the app.

Started by :class:`rlgpt_tui.sandbox.Worker` as ``python -m rlgpt_tui.sandbox.worker IN
OUT SLOT`` with an environment holding no secrets. It imports everything it needs, reads
its settings, confines itself (:func:`rlgpt_tui.sandbox.boundary.confine`: resource limits
and a seccomp filter), answers ``ready``, then serves requests until its input closes.

Wire protocol: :mod:`rlgpt_tui.sandbox.protocol` (typed requests, pickled; typed replies,
JSON). Before each call of untrusted code the worker writes the env it runs for, the
start time and its own CPU time into a shared slot (24 bytes of shared memory), so the app
can enforce each call's CPU budget from outside and knows which call to blame for a death.
"""

from __future__ import annotations

import json
import mmap
import os
import pickle
import sys
import time
import traceback

# everything untrusted code may touch, imported before the filter goes on (in _serve)
from rlgpt_tui.sandbox.boundary import confine
from rlgpt_tui.sandbox.protocol import (
    DEBUG_ENV,
    MAX_REQUEST,
    SLOT_SIZE,
    Ready,
    read_frame,
    write_frame,
)
from rlgpt_tui.sandbox.serving import WorkerState
from rlgpt_tui.skills import checker, runtime  # noqa: F401


def _serve(proto_in: int, proto_out: int, slot_fd: int) -> None:
    runtime.recorded_views()  # read the recorded Views while files can still be opened
    slot = mmap.mmap(slot_fd, SLOT_SIZE)
    os.close(slot_fd)
    hello = pickle.loads(read_frame(proto_in, MAX_REQUEST))
    confine(hello.confinement, filtered=hello.filtered)
    state = WorkerState(slot, time.monotonic)
    write_frame(proto_out, json.dumps(Ready(os.getpid()).to_json()).encode())
    while True:
        try:
            request = pickle.loads(read_frame(proto_in, MAX_REQUEST))
        except EOFError:
            return
        reply = state.handle(request)
        write_frame(proto_out, json.dumps(reply.to_json(), ensure_ascii=True).encode())


def main(argv: list[str]) -> int:
    proto_in, proto_out, slot_fd = (int(a) for a in argv[1:4])
    # stdin, stdout and stderr go nowhere: nothing printed can corrupt the protocol
    debug = os.environ.get(DEBUG_ENV) == "1"
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1) if debug else (0, 1, 2):
        if fd not in (proto_in, proto_out, slot_fd):
            os.dup2(null, fd)
    os.close(null)
    try:
        _serve(proto_in, proto_out, slot_fd)
    except MemoryError:
        os._exit(3)
    except BaseException:  # noqa: BLE001 - a broken worker exits; the app restarts it
        if debug:
            traceback.print_exc()
        os._exit(2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
