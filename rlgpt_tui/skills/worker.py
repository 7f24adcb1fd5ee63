"""The sandbox worker: a separate, confined process that runs untrusted code for the app.

Started by :class:`rlgpt_tui.skills.pool.Worker` as ``python -m rlgpt_tui.skills.worker IN
OUT SLOT`` with an environment holding no secrets. It imports everything it needs, reads
its settings, confines itself (:func:`rlgpt_tui.skills.boundary.confine`: resource limits
and a seccomp filter), answers ``ready``, then serves requests until its input closes.

Wire protocol: frames of a 4-byte little-endian length and a payload. The app's requests
are pickles (the app is trusted; the worker unpickles them). The worker's replies are
JSON (the app never unpickles what untrusted code could have written) and at most
:data:`MAX_REPLY` bytes. Before each call of untrusted code the worker writes the env it
runs for and the start time into a shared slot (16 bytes of shared memory), so the app can
enforce each call's wall clock from outside and knows which call to blame for a death.

Requests (dicts, by ``op``):

- ``load``: compile coded actions (``actions``: slot, name, source, limits, dry_run) and
  reward code (``reward``), each validated and, if asked, dry-run on recorded Views.
  Reply ``{"actions": {slot: error or null}, "reward": error or null}``.
- ``step``: ``stop`` calls (envs), ``reset`` envs' episode memory, ``start`` calls (env,
  slot), then ``ask`` envs for their next primitive given their Views (``rows``,
  ``light``: :func:`rlgpt_tui.envs.base.encode_views`). Reply ``{"next": [action or -1],
  "ends": [[env, reason, detail]]}`` for the asked envs whose calls ended.
- ``reward``: shaping rewards ``reward(prev, now)`` for envs (``prev``, ``now`` encoded).
  Reply ``{"values": [...], "failures": {message: count}}``.
"""

from __future__ import annotations

import json
import os
import struct
import sys

HEADER = struct.Struct("<I")
SLOT = struct.Struct("<dd")  # env being called (-1: none), its start time (time.monotonic)
SLOT_SIZE = SLOT.size
MAX_REPLY = 8 << 20
MAX_REQUEST = 256 << 20
DEBUG_ENV = "RLGPT_WORKER_DEBUG"  # 1: a worker's own errors go to the app's stderr


class ProtocolError(Exception):
    """A frame was cut off, too large or not what the protocol says."""


def write_frame(fd: int, payload: bytes) -> None:
    data = HEADER.pack(len(payload)) + payload
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def read_exact(fd: int, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError("the other side closed the pipe")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int, limit: int) -> bytes:
    (size,) = HEADER.unpack(read_exact(fd, HEADER.size))
    if size > limit:
        raise ProtocolError(f"a frame of {size:,} bytes exceeds {limit:,}")
    return read_exact(fd, size)


def _serve(proto_in: int, proto_out: int, slot_fd: int) -> None:
    import mmap
    import pickle
    import time

    # everything untrusted code may touch, imported before the filter goes on
    from rlgpt_tui.skills import runtime, sandbox  # noqa: F401
    from rlgpt_tui.skills.boundary import confine
    from rlgpt_tui.skills.serving import WorkerState

    runtime.recorded_views()  # read the recorded Views while files can still be opened
    slot = mmap.mmap(slot_fd, SLOT_SIZE)
    os.close(slot_fd)
    settings = pickle.loads(read_frame(proto_in, MAX_REQUEST))
    confine(settings["confinement"], filtered=settings["filtered"])
    state = WorkerState(slot, time.monotonic)
    write_frame(proto_out, json.dumps({"ready": os.getpid()}).encode())
    while True:
        try:
            request = pickle.loads(read_frame(proto_in, MAX_REQUEST))
        except EOFError:
            return
        reply = state.handle(request)
        write_frame(proto_out, json.dumps(reply, ensure_ascii=True).encode())


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
            import traceback

            traceback.print_exc()
        os._exit(2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
