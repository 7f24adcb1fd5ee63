"""How sessions, results and shared skill files name an agent and its model: by the model's
name, never by a path on the machine that ran it."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


def model_label(model: str) -> str:
    """A model as sessions and results name it: a llama.cpp server's model id is its GGUF
    file's path, named by the file's stem (``/models/qwen2.5-coder-1.5b.gguf`` ->
    ``qwen2.5-coder-1.5b``); any other id as it is."""
    return Path(model).stem if model.lower().endswith(".gguf") else model


SEVERAL = "several authors"  # code composed from the code of more than one author


def agent_label(label: str) -> str:
    """An agent's recorded label (``llm:MODEL``, ``builtin``, ``several authors (A, B)``)
    with each model named by :func:`model_label`: sessions recorded before agents were so
    named kept the path (two names of one model are then one author)."""
    if label.startswith(f"{SEVERAL} (") and label.endswith(")"):
        return several_authors(label[len(SEVERAL) + 2 : -1].split(", "))
    kind, colon, model = label.partition(":")
    return f"{kind}:{model_label(model)}" if colon else label


def agent_labels(labels: Iterable[str]) -> list[str]:
    """Each agent once, by :func:`agent_label`, in order: an older record's GGUF path and a
    newer record's model name are one agent."""
    return list(dict.fromkeys(agent_label(label) for label in labels))


def several_authors(labels: Iterable[str]) -> str:
    """One author's label, or ``several authors (A, B)`` (sorted, each once)."""
    writers = sorted(set(agent_labels(labels)))
    return writers[0] if len(writers) == 1 else f"{SEVERAL} ({', '.join(writers)})"
