"""Policy skills: a trained policy that coded actions call, ``yield from ctx.skill("name")``.

A :class:`PolicySkill` is data: the actor of a trained MLP policy (SB3's
``ActorCriticPolicy``: Linear layers with Tanh between, then its action head) as numpy
arrays, the observation features it was trained on, the primitive action each output is,
its task's goal, its step budget and the stat levels at which it stops. It travels to the
sandbox workers with the coded action that calls it and runs there as a numpy forward pass
(:func:`run_policy`) over the observation computed from the View
(:func:`~rlgpt_tui.envs.base.view_observations`); no torch, no code from anyone.
"""

from __future__ import annotations

import random
from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from rlgpt_tui.envs.base import ACHIEVEMENTS, INVENTORY_ITEMS, STATS, View, view_observations
from rlgpt_tui.skills.guard import SurvivalGuard

#: ``ctx.begin_step`` mark of a call that ran a policy skill (counted per coded call)
POLICY_MARK = "policy:"
#: the SB3 parameter names of an MLP actor: hidden layers, then the action head
HIDDEN = "mlp_extractor.policy_net."
HEAD = "action_net."


class Caller(Protocol):
    """What a policy skill reads of the ``ctx`` that runs it (a SkillContext)."""

    @property
    def view(self) -> View: ...

    random: random.Random


class PolicySkillError(ValueError):
    """Weights or a header that cannot be a policy skill (one line naming the fix)."""


@dataclass(frozen=True, eq=False)  # equal when the same object: its arrays have no ==
class PolicySkill:
    """A trained policy as a skill (see the module's docstring)."""

    name: str
    world: str
    layers: tuple[tuple[np.ndarray, np.ndarray], ...] = field(repr=False)  # (W in x out, b)
    actions: tuple[int, ...]  # the primitive action index of each output
    features: tuple[int, ...] | None = None  # observation indices it reads (None: all)
    goal_achievement: str | None = None
    goal_inventory: Mapping[str, int] = field(default_factory=dict)
    max_steps: int = 64
    stop_at: Mapping[str, int] = field(default_factory=dict)  # a stat at or below: stop
    # a survive policy: its goal is met once this guard no longer holds (vitals above its
    # levels, no hostile adjacent), so that it returns to the plan that called it
    done: SurvivalGuard | None = None
    deterministic: bool = True
    label: str = ""  # e.g. "collect_wood policy #3"
    ref: str = ""  # how a recorded coded action names it (a digest of its weights)

    def __post_init__(self) -> None:
        if self.goal_achievement is not None and self.goal_achievement not in ACHIEVEMENTS:
            raise PolicySkillError(
                f"policy skill {self.name}: unknown goal {self.goal_achievement}"
            )
        unknown = [k for k in self.goal_inventory if k not in INVENTORY_ITEMS]
        unknown += [k for k in self.stop_at if k not in STATS]
        if unknown:
            raise PolicySkillError(f"policy skill {self.name}: unknown item or stat {unknown[0]}")

    def met(self, view: View, start: View | None = None) -> bool:
        """Whether ``view`` meets the goal since ``start`` (the View when the call began;
        None: since the episode began): its achievement unlocked after ``start``, or each
        goal item's count risen by the goal's amount since then (food and drink too: eating
        and drinking raise them). A second call in one episode is not met at once by what
        an earlier call did. A survive policy's goal is that survival is no longer due."""
        if self.done is not None:
            return not self.done.holds(view)
        if self.goal_achievement is not None:
            if self.goal_achievement in view.achievements:
                return start is None or self.goal_achievement not in start.achievements
            return False
        if self.goal_inventory:
            return all(
                _count(view, k) - (0 if start is None else _count(start, k)) >= n
                for k, n in self.goal_inventory.items()
            )
        return False

    def stops(self, view: View) -> bool:
        """Whether a stop condition it was saved with says stop in ``view``."""
        return any(getattr(view, stat) <= level for stat, level in self.stop_at.items())

    def logits(self, view: View) -> np.ndarray:
        """The actor's logits for ``view`` (one per output)."""
        x = view_observations([view])[0]
        if self.features is not None:
            x = x[list(self.features)]
        last = len(self.layers) - 1
        for i, (weight, bias) in enumerate(self.layers):
            x = x @ weight + bias
            if i < last:
                x = np.tanh(x)
        return x


def _count(view: View, item: str) -> int:
    """How many of ``item`` ``view`` holds (food and drink: the player's stat)."""
    if item in view.inventory:
        return int(view.inventory[item])
    return int(getattr(view, item, 0)) if item in ("food", "drink") else 0


def actor_layers(
    arrays: Mapping[str, np.ndarray], inputs: int, outputs: int
) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """The actor of SB3 MLP policy parameters (``arrays``, as a policy's ``.npz`` holds
    them) as (weight transposed, bias) float32 pairs; :class:`PolicySkillError` unless they
    take ``inputs`` observation floats and give ``outputs`` action logits."""
    hidden = sorted({int(k[len(HIDDEN) :].split(".")[0]) for k in arrays if k.startswith(HIDDEN)})
    names = [f"{HIDDEN}{i}." for i in hidden] + [HEAD]
    layers = []
    for prefix in names:
        weight, bias = arrays.get(prefix + "weight"), arrays.get(prefix + "bias")
        if weight is None or bias is None or weight.ndim != 2 or bias.shape != weight.shape[:1]:
            raise PolicySkillError(
                f"the weights lack {prefix}weight and bias of one Linear layer: not an MLP "
                "policy's; export it again from a session"
            )
        layers.append((np.asarray(weight, np.float32).T.copy(), np.asarray(bias, np.float32)))
    size = inputs
    for (weight, _), prefix in zip(layers, names, strict=True):
        if weight.shape[0] != size:
            what = "observation floats" if size == inputs else "inputs"
            raise PolicySkillError(
                f"{prefix}weight takes {weight.shape[0]} {what} where {size} come: the weights "
                "were trained with another observation or network; export them again"
            )
        size = weight.shape[1]
    if size != outputs:
        raise PolicySkillError(
            f"the weights give {size} action logits where the policy has {outputs} actions: "
            "they were trained with another action set; export them again"
        )
    return tuple(layers)


def run_policy(ctx: Caller, policy: PolicySkill) -> Generator[int, None, bool]:
    """Act by ``policy`` until its goal is met since this call began (True; see
    :meth:`PolicySkill.met`), a stop condition holds or its step budget ends (False). Each
    action is one step of the calling coded action's budget."""
    sampler: np.random.Generator | None = None
    start = ctx.view
    for _ in range(policy.max_steps):
        view = ctx.view
        if policy.met(view, start):
            return True
        if policy.stops(view):
            return False
        logits = policy.logits(view)
        if policy.deterministic:
            choice = int(np.argmax(logits))
        else:
            if sampler is None:
                sampler = np.random.default_rng(ctx.random.getrandbits(64))
            noise = -np.log(-np.log(sampler.random(logits.shape)))  # Gumbel-max sampling
            choice = int(np.argmax(logits + noise))
        yield policy.actions[choice]
    return policy.met(ctx.view, start)


def policy_table(policies: Any) -> dict[str, PolicySkill]:
    """``policies`` (PolicySkills) by name."""
    return {p.name: p for p in policies or ()}
