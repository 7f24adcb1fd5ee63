"""The MineDojo side of the pipe: run ``minedojo.make(...)`` and answer requests on stdio.

This file runs in the interpreter that has MineDojo (Python 3.9, gym 0.21, numpy < 2), so it
imports nothing from rlgpt_tui: only the standard library and numpy. rlgpt imports its
framing functions too, so both sides share one protocol.

Frame: 4-byte big-endian length, then a JSON header; arrays travel as raw bytes after it,
described in the header (``{"__array__": i, "dtype": ..., "shape": [...]}``).
Requests: ``{"op": "ping"}``, ``{"op": "make", "task_id", "image_size", "seed"}``,
``{"op": "reset"}``, ``{"op": "step", "action": [8 ints]}``, ``{"op": "close"}``.
Replies: ``{"ok": true, ...}`` or ``{"ok": false, "error": "..."}``.

``RLGPT_MINEDOJO_FACTORY=module:function`` replaces ``minedojo.make`` (a stand-in for tests).
"""

from __future__ import annotations

import importlib
import json
import os
import struct
import sys
import traceback
from typing import Any

import numpy as np

HEADER = struct.Struct(">I")


def _pack_value(value, arrays):
    if isinstance(value, np.ndarray):
        arrays.append(np.ascontiguousarray(value))
        return {"__array__": len(arrays) - 1, "dtype": value.dtype.str, "shape": value.shape}
    if isinstance(value, dict):
        return {str(k): _pack_value(v, arrays) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_pack_value(v, arrays) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def write_message(stream, message) -> None:
    """Write one frame: header JSON (arrays replaced by descriptors), then array bytes."""
    arrays: list[np.ndarray] = []
    header = _pack_value(message, arrays)
    sizes = [a.nbytes for a in arrays]
    text = json.dumps({"body": header, "sizes": sizes}).encode()
    stream.write(HEADER.pack(len(text)) + text)
    for array in arrays:
        stream.write(array.tobytes())
    stream.flush()


def _unpack_value(value, arrays):
    if isinstance(value, dict):
        if "__array__" in value:
            return arrays[value["__array__"]]
        return {k: _unpack_value(v, arrays) for k, v in value.items()}
    if isinstance(value, list):
        return [_unpack_value(v, arrays) for v in value]
    return value


def read_exact(stream, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            raise EOFError("the other side closed the pipe")
        data += chunk
    return data


def read_message(stream):
    """Read one frame written by :func:`write_message`."""
    (length,) = HEADER.unpack(read_exact(stream, HEADER.size))
    envelope = json.loads(read_exact(stream, length))
    header = envelope["body"]
    descriptors = []
    _collect_descriptors(header, descriptors)
    arrays = {}
    ordered = sorted(descriptors, key=lambda d: d["__array__"])
    for descriptor, size in zip(ordered, envelope["sizes"]):  # noqa: B905 - runs on Python 3.9
        raw = read_exact(stream, size)
        arrays[descriptor["__array__"]] = np.frombuffer(raw, dtype=descriptor["dtype"]).reshape(
            descriptor["shape"]
        )
    return _unpack_value(header, arrays)


def _collect_descriptors(value, found) -> None:
    if isinstance(value, dict):
        if "__array__" in value:
            found.append(value)
            return
        for v in value.values():
            _collect_descriptors(v, found)
    elif isinstance(value, list):
        for v in value:
            _collect_descriptors(v, found)


def _factory():
    spec = os.environ.get("RLGPT_MINEDOJO_FACTORY")
    if spec:
        module, function = spec.split(":")
        return getattr(importlib.import_module(module), function)
    import minedojo  # noqa: PLC0415 - only where MineDojo is installed

    return minedojo.make


def _craft_items(env):
    """The names behind the craft argument (action index 6), in MineDojo's order."""
    items = getattr(env, "craft_items", None)
    if items is None:
        from minedojo.sim.mc_meta.mc import ALL_CRAFT_SMELT_ITEMS  # noqa: PLC0415 - as above

        items = ALL_CRAFT_SMELT_ITEMS
    return [str(i) for i in items]


def _made(env: Any, op: str) -> Any:
    """The env ``make`` made: a ``reset`` or ``step`` before it is refused by name."""
    if env is None:
        raise RuntimeError(f"{op} before make: send make first")
    return env


def serve(stdin, stdout) -> None:
    """Answer requests until ``close`` or end of input."""
    env = None
    while True:
        try:
            request = read_message(stdin)
        except EOFError:
            break
        op = request.get("op")
        try:
            if op == "ping":
                reply = {"ok": True, "pid": os.getpid(), "python": sys.version.split()[0]}
            elif op == "make":
                env = _factory()(
                    task_id=request["task_id"],
                    image_size=tuple(request["image_size"]),
                    seed=request.get("seed", 0),
                )
                reply = {"ok": True, "craft_items": _craft_items(env)}
            elif op == "reset":
                reply = {"ok": True, "obs": _made(env, op).reset()}
            elif op == "step":
                action = np.asarray(request["action"], dtype=np.int64)
                obs, reward, done, info = _made(env, op).step(action)
                reply = {
                    "ok": True,
                    "obs": obs,
                    "reward": float(reward),
                    "done": bool(done),
                    "info": {
                        k: v for k, v in info.items() if isinstance(v, (int, float, bool, str))
                    },
                }
            elif op == "close":
                if env is not None:
                    env.close()
                write_message(stdout, {"ok": True})
                break
            else:
                reply = {"ok": False, "error": f"unknown op {op!r}"}
        except Exception as error:  # reported to rlgpt, which decides what to do
            reply = {
                "ok": False,
                "error": f"{type(error).__name__}: {error}",
                "trace": traceback.format_exc()[-2000:],
            }
        write_message(stdout, reply)


if __name__ == "__main__":
    protocol_out = os.fdopen(os.dup(1), "wb")  # the pipe to rlgpt...
    os.dup2(2, 1)  # ...and anything Minecraft or Java prints goes to stderr instead
    sys.stdout = sys.stderr
    serve(sys.stdin.buffer, protocol_out)
