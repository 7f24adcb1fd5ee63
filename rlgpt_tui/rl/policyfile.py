"""Trained policies as data: what the skill library keeps of one, and its files.

A policy is its :class:`~rlgpt_tui.rl.config.RLConfig` (its coded actions' sources
included), who wrote those actions, its weights as ``.npz`` bytes (arrays only, never
unpickled), the samples it was trained on and its evaluation. ``skills export`` writes each
as ``policies/<task>-<world>-p<n>.json`` (everything but the weights) and ``.npz``. No torch
here: listing and sharing policies stays light; :mod:`rlgpt_tui.rl.weights` loads them.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from rlgpt_tui.rl.config import RLConfig


class WeightsError(ValueError):
    """Weights that cannot be read as arrays, or do not fit the policy they are loaded into
    (one line)."""


def read_weights(data: bytes) -> dict[str, np.ndarray]:
    """The arrays in ``.npz`` bytes; :class:`WeightsError` if they are not plain arrays."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            return {name: npz[name] for name in npz.files}
    except (OSError, ValueError, EOFError) as error:
        raise WeightsError(f"not a policy's weights (.npz of arrays): {error}") from None


#: a library folder's subfolder of trained policies (``skills export`` writes it)
POLICY_FOLDER = "policies"


@dataclass(frozen=True)
class SavedPolicy:
    """A trained policy a session may start PPO from: the configuration it was trained
    with (its coded actions' sources included), their authors, its weights, the samples it
    was trained on, its evaluation and how it acts."""

    task: str
    world: str
    subaction: str
    rl_config: dict[str, Any]
    authors: dict[str, str]
    samples: int
    measure: str
    value: float | None
    ci95: tuple[float, float] | None
    episodes: int | None
    deterministic: bool | None
    made_in: str
    weights: bytes = field(repr=False, default=b"")

    @property
    def actions(self) -> list[str]:
        return [c["name"] for c in self.rl_config.get("coded_actions", [])]

    def header(self) -> dict[str, Any]:
        """Everything but the weights, as JSON data (a subclass's own fields left out)."""
        return {f.name: getattr(self, f.name) for f in fields(SavedPolicy) if f.name != "weights"}


class PolicyFileError(ValueError):
    """A policy file that cannot be read (one line naming the file and the fix)."""


def write_policy(folder: Path, policy: SavedPolicy, number: int) -> Path:
    """``policy`` as ``<task>-<world>-p<number>.json`` (its header) and ``.npz`` (weights)
    in ``folder/policies``; returns the header's path."""
    where = Path(folder) / POLICY_FOLDER
    where.mkdir(parents=True, exist_ok=True)
    stem = where / f"{policy.task}-{policy.world}-p{number}"
    stem.with_suffix(".npz").write_bytes(policy.weights)
    header = stem.with_suffix(".json")
    header.write_text(json.dumps(policy.header(), indent=1) + "\n")
    return header


def read_policies(folder: Path, world: str | None = None) -> list[SavedPolicy]:
    """The policies of ``folder/policies`` trained in ``world`` (None: any); a bad one
    raises :class:`PolicyFileError` naming it."""
    where = Path(folder) / POLICY_FOLDER
    found = []
    for header in sorted(where.glob("*.json")) if where.is_dir() else []:
        try:
            data = json.loads(header.read_text())
            policy = SavedPolicy(
                **{**data, "ci95": tuple(data["ci95"]) if data.get("ci95") else None},
                weights=header.with_suffix(".npz").read_bytes(),
            )
            RLConfig.model_validate(policy.rl_config)
            read_weights(policy.weights)
        except (OSError, TypeError, KeyError, ValueError) as error:
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise PolicyFileError(
                f"{header}: not a trained policy ({reason}): remove it or export it again"
            ) from None
        if world is None or policy.world == world:
            found.append(policy)
    return found
