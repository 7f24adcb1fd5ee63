"""Typed, validated configuration of one RL training run (what the fast agent writes)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from rlgpt_tui.envs import ACTION_NAMES, UnknownWorldError, world_info
from rlgpt_tui.skills.policy import PolicySkill
from rlgpt_tui.skills.runtime import CodedActionLimits
from rlgpt_tui.skills.validation import ValidatedAction, validate
from rlgpt_tui.tasks.catalog import get_task

#: the policy skills a coded action's source calls: (source, name: reference) -> skills
PolicyResolver = Callable[[str, Mapping[str, str]], tuple[PolicySkill, ...]]
#: environment variable choosing where the policy lives: auto (the default), cpu or cuda
DEVICE_VARIABLE = "RLGPT_TORCH_DEVICE"


def device_choice() -> str:
    """``RLGPT_TORCH_DEVICE`` (auto, cpu or cuda; ``cpu`` keeps a GPU free), checked."""
    chosen = os.environ.get(DEVICE_VARIABLE, "").strip().lower() or "auto"
    if chosen not in ("auto", "cpu", "cuda"):
        raise ValueError(f"{DEVICE_VARIABLE} must be auto, cpu or cuda, got {chosen!r}")
    if chosen == "cuda":
        import torch  # start-up: configs are checked without torch; only cuda asks it

        if not torch.cuda.is_available():
            raise ValueError(f"{DEVICE_VARIABLE}=cuda but torch sees no GPU: unset it or use cpu")
    return chosen


def world_segments(env: str) -> tuple[str, ...]:
    """The observation segment names of world ``env`` (from the world registry)."""
    return world_info(env).observation_segments


def world_actions(env: str) -> tuple[str, ...]:
    """The primitive action names of world ``env`` (from the world registry)."""
    return world_info(env).actions


class PPOParams(BaseModel):
    """PPO hyper-parameters (stable-baselines3 names)."""

    model_config = ConfigDict(extra="forbid")

    learning_rate: float = Field(3e-4, gt=0, le=1)
    n_steps: int = Field(64, ge=8, le=8192)
    batch_size: int = Field(512, ge=8)
    n_epochs: int = Field(4, ge=1, le=50)
    gamma: float = Field(0.99, gt=0, le=1)
    # what follows a coded call is discounted by gamma once ("decision") or by gamma to the
    # power of its steps ("step", a semi-MDP): gamma per step shortens the horizon in
    # decisions, and measured no better (docs/findings.md, "Levers that measured no better")
    discount_per: Literal["decision", "step"] = "decision"
    gae_lambda: float = Field(0.95, ge=0, le=1)
    clip_range: float = Field(0.2, gt=0, le=1)
    ent_coef: float = Field(0.01, ge=0, le=1)
    vf_coef: float = Field(0.5, ge=0, le=10)
    net_arch: list[int] = Field(default_factory=lambda: [64, 64])


class CodedActionSpec(BaseModel):
    """A coded action offered to the policy: its code and budgets.

    Built from a :class:`ValidatedAction` (:meth:`of`), it carries that action (not in its
    JSON), so training and evaluation use it without validating the source again; a spec
    read from JSON (a resumed session) is validated once, on first use."""

    model_config = ConfigDict(extra="forbid")

    name: str
    source: str
    description: str = ""
    max_steps: int = Field(64, ge=1, le=10_000)
    seconds: float = Field(0.5, gt=0, le=60)
    version: int | None = None  # the store's code version id of ``source``
    # the policy skills its ctx.skill("name") calls run, by name: their references (a digest
    # of the weights, not the weights); reloaded from the library where it is read back
    # (written only where it calls one, so configs without any read and record as before)
    policies: dict[str, str] = Field(default_factory=dict, exclude_if=lambda refs: not refs)
    _validated: ValidatedAction | None = PrivateAttr(default=None)
    _policies: tuple[PolicySkill, ...] = PrivateAttr(default=())

    @classmethod
    def of(cls, action: ValidatedAction, **budgets: Any) -> CodedActionSpec:
        """The spec of a validated action (``budgets``: max_steps, seconds)."""
        spec = cls(
            name=action.name,
            source=action.source,
            description=action.description,
            version=action.version,
            policies={p.name: p.ref for p in action.policies},
            **budgets,
        )
        spec._validated = action
        spec._policies = tuple(action.policies)
        return spec

    def load_policies(self, resolve: PolicyResolver) -> CodedActionSpec:
        """Attach the policy skills its source calls, as ``resolve(source, references)``
        finds them (a session's shelf: :meth:`~rlgpt_tui.library.shelf.SkillShelf.
        policies_called`), so that a spec read from JSON validates and runs them."""
        if self._validated is None and "skill" in self.source:
            self._policies = tuple(resolve(self.source, self.policies))
        return self

    @property
    def limits(self) -> CodedActionLimits:
        return CodedActionLimits(max_steps=self.max_steps, seconds=self.seconds)

    def validated(self) -> ValidatedAction:
        """The validated action of this spec: the one it was built from, else validated now
        (once; raises CodeValidationError)."""
        known = self._validated
        if known is None or known.source != self.source or known.name != self.name:
            known = validate(
                self.name,
                self.source,
                self.description,
                self.limits,
                self.version,
                policies=self._policies,
            )
        elif (known.limits, known.version) != (self.limits, self.version):
            known = known.with_limits(self.limits).with_version(self.version)
        self._validated = known
        return known

    def carry_validation(self, other: CodedActionSpec | None) -> CodedActionSpec:
        """Keep ``other``'s validated action when it is of the same source (a copy of a
        config made through JSON, e.g. by an RL-config edit)."""
        if (
            other is not None
            and (other.name, other.source) == (self.name, self.source)
            and other._validated is not None
            and self._validated is None
        ):
            self._validated = other._validated
            self._policies = other._policies
        return self

    @field_validator("name")
    @classmethod
    def _identifier(cls, value: str) -> str:
        if not value.isidentifier():
            raise ValueError(f"coded action name {value!r} must be a Python identifier")
        return value


class StartFromCode(BaseModel):
    """RL that starts from the code: the policy begins by choosing coded action ``action``
    (the code's own solution) with probability ``share``, and its first ``critic_warmup``
    rollouts train only the value function, so that the first policy updates follow
    advantages of the code's returns rather than of an untrained critic. ``anchor``: PPO's
    entropy bonus is replaced by this coefficient times the KL divergence from the starting
    policy (0: no pull toward the code)."""

    model_config = ConfigDict(extra="forbid")

    action: str | None = None  # None: RL starts from a uniform policy
    # 0.5, with the anchor's decay 0.9: RL climbs above an LLM's weaker code and keeps
    # the code's figure on strong code, where 0.95 without decay stays on the code; a policy
    # whose mode repeats one part is evaluated sampled, as it was trained
    # (``sampled_may_beat_mode``). The measurements: docs/findings.md
    share: float = Field(0.5, gt=0, lt=1)
    critic_warmup: int = Field(2, ge=0, le=100)
    anchor: float = Field(0.1, ge=0, le=10)
    # ``primitive_share``: of the starting policy's 1 - share, the part spread over the
    # primitives (the rest over the other coded actions); None: even over all.
    # ``anchor_decay``: the anchor is multiplied by this after every policy update.
    primitive_share: float | None = Field(None, ge=0, le=1)
    anchor_decay: float = Field(0.9, gt=0, le=1)
    # ``rollout_decisions``: a rollout holds at most about this many decisions (ppo.n_steps
    # is capped at it / num_envs): coded calls last tens of steps, so 64 steps x 64 envs of
    # decisions would be a rollout of ~200k samples and a run of 1M samples would update
    # the policy a handful of times (None: no cap).
    rollout_decisions: int | None = Field(256, ge=1, le=1_000_000)


class RunnerHooks(BaseModel):
    """The episode runner's research levers (:mod:`rlgpt_tui.rl.hooks`), all off by
    default: none measured better than without it (docs/findings.md)."""

    model_config = ConfigDict(extra="forbid")

    # subtracted from the reward when an episode ends in the player's death
    death_penalty: float = Field(0.0, ge=0, le=100)
    # a coded call ends at the step the player loses health, so the policy decides then
    interrupt_on_damage: bool = False
    # a coded call ends at the step a zombie, skeleton or arrow comes within this many steps
    # (Manhattan) of the player, from farther or out of sight (0: never), so the policy
    # decides there (fight, step away, wall in, or go on with the code)
    interrupt_on_danger: int = Field(0, ge=0, le=8)
    # a coded call ends at the step health, food or drink falls to this value or below
    # (from above; 0: never), so the policy decides there (eat, drink, heal, or go on)
    interrupt_on_need: int = Field(0, ge=0, le=8)
    # the coded actions share one ctx.memory per env (default: each its own), so that a
    # skill chosen beside a script knows what the script saw (the water and cows it
    # remembered); their memory keys must then not clash
    shared_memory: bool = False
    # a call ended at damage, danger or need is kept, and resumed where it yielded (with
    # the step budget it had left) when the policy chooses its action again in that
    # episode, even after other actions ran in between (default: it starts afresh, losing
    # its progress). Chosen again at once, it runs as if never interrupted
    resume_interrupted: bool = False


#: the fields of configs written before grouping, and where each lives now (group, name)
FLAT_FIELDS: dict[str, tuple[str, str]] = {
    "start_from": ("start", "action"),
    "start_share": ("start", "share"),
    "critic_warmup": ("start", "critic_warmup"),
    "start_anchor": ("start", "anchor"),
    "start_primitive_share": ("start", "primitive_share"),
    "start_anchor_decay": ("start", "anchor_decay"),
    "start_rollout_decisions": ("start", "rollout_decisions"),
    **{name: ("hooks", name) for name in RunnerHooks.model_fields},
}


def dumped_value(dump: Mapping[str, Any], key: str) -> Any:
    """The value of field ``key`` (a field, or a flat name of :data:`FLAT_FIELDS`) in a
    config's ``model_dump``."""
    if key in FLAT_FIELDS and key not in dump:
        group, name = FLAT_FIELDS[key]
        return dump[group][name]
    return dump[key]


def group_flat_fields(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (config fields) with each flat name of :data:`FLAT_FIELDS` moved into its
    group, over the group's value there; ``data`` itself is not changed."""
    if not FLAT_FIELDS.keys() & data.keys():
        return data
    data = dict(data)
    for flat, (group, name) in FLAT_FIELDS.items():
        if flat in data:
            value = data.pop(flat)
            current = data.get(group) or {}
            if isinstance(current, BaseModel):
                current = current.model_dump()
            data[group] = {**current, name: value}
    return data


class RLConfig(BaseModel):
    """Everything a PPO run needs: task, observation, reward, action space, budget, seed;
    grouped: ``ppo`` (PPO's hyper-parameters), ``start`` (RL that starts from the code),
    ``hooks`` (the runner's research levers)."""

    model_config = ConfigDict(extra="forbid")

    task: str
    env: str = "craftax"
    num_envs: int = Field(64, ge=1, le=4096)
    observation: list[str] | None = None  # world observation segments; None = all
    reward_code: str | None = None  # `def reward(prev, now) -> float`, added to the goal reward
    primitives: list[str] | None = None  # None = all 17
    coded_actions: list[CodedActionSpec] = []
    horizon: int | None = Field(None, gt=0, le=100_000)  # None = the task's horizon
    samples: int = Field(100_000, ge=1, le=1_000_000_000)
    seed: int = Field(0, ge=0)
    # Training resets draw worlds from a pool where each generated world starts up to this
    # many episodes (Craftax; world generation dominates short episodes). Evaluation
    # episodes always start in newly generated worlds.
    episodes_per_world: int = Field(4, ge=1, le=64)
    ppo: PPOParams = Field(default_factory=PPOParams)
    checkpoint_dir: Path | None = None
    checkpoint_every: int = Field(10, ge=1)  # rollouts between checkpoints
    # this training's TensorBoard run (PPO's train/* and rollout/* scalars on its samples,
    # then its evaluation); None: none. Needs the tensorboard extra
    tensorboard_dir: Path | None = None
    # RL that starts from the code (``start.action``: a coded action's name; None: from a
    # uniform policy), its research levers (the runner's hooks)
    start: StartFromCode = Field(default_factory=StartFromCode)
    hooks: RunnerHooks = Field(default_factory=RunnerHooks)

    @model_validator(mode="before")
    @classmethod
    def _group_flat_fields(cls, data: Any) -> Any:
        """Configs written before the fields were grouped (recorded sessions, policy files,
        ``--config`` files, RL-config edits) name ``start_from``, ``start_share``,
        ``death_penalty`` ... at the top: each moves into its group (over the group's
        value, so that a flat edit on top of a grouped config wins)."""
        return group_flat_fields(data) if isinstance(data, dict) else data

    @field_validator("task")
    @classmethod
    def _known_task(cls, value: str) -> str:
        get_task(value)  # raises UnknownTaskError with the fix
        return value

    @field_validator("env")
    @classmethod
    def _known_env(cls, value: str) -> str:
        try:
            world_info(value)
        except UnknownWorldError as error:
            raise ValueError(str(error)) from None
        return value

    @field_validator("primitives")
    @classmethod
    def _known_primitives(cls, value: list[str] | None) -> list[str] | None:
        if value is not None:
            unknown = [v for v in value if v not in ACTION_NAMES]
            if unknown:
                raise ValueError(f"unknown primitive(s) {unknown}: use {', '.join(ACTION_NAMES)}")
            if not value:
                raise ValueError("primitives must not be empty (omit it for all 17)")
        return value

    @model_validator(mode="after")
    def _some_action(self) -> RLConfig:
        names = [c.name for c in self.coded_actions]
        if len(set(names)) != len(names):
            raise ValueError("coded action names must be distinct")
        start = self.start.action
        if start is not None and start not in names:
            raise ValueError(
                f"start.action {start!r} is not one of the coded actions: use one of "
                f"{names} (or null to start from a uniform policy)"
            )
        if self.observation is not None:
            segments = world_segments(self.env)
            unknown = [s for s in self.observation if s not in segments]
            if unknown:
                raise ValueError(
                    f"unknown observation segment(s) {', '.join(map(str, unknown))} for "
                    f"{self.env}: use {', '.join(segments)} (or null for all)"
                )
        return self

    def rollout_steps(self, num_envs: int | None = None) -> int:
        """Decisions per env in a rollout of ``num_envs`` envs (default the config's):
        ``ppo.n_steps``, capped for RL that starts from code (``start.rollout_decisions``)."""
        cap = self.start.rollout_decisions
        if self.start.action is None or cap is None:
            return self.ppo.n_steps
        return max(1, min(self.ppo.n_steps, cap // (num_envs or self.num_envs)))

    def carry_validation(self, other: RLConfig | Mapping[str, ValidatedAction]) -> RLConfig:
        """Keep the validated coded actions of ``other`` (a config, or validated actions by
        name) where this config has the same sources."""
        if isinstance(other, RLConfig):
            by_name = {c.name: c for c in other.coded_actions}
        else:
            by_name = {n: CodedActionSpec.of(a) for n, a in other.items()}
        for spec in self.coded_actions:
            spec.carry_validation(by_name.get(spec.name))
        return self

    def load_policies(self, resolve: PolicyResolver) -> RLConfig:
        """Attach to each coded action read from JSON the policy skills it calls
        (:meth:`CodedActionSpec.load_policies`)."""
        for spec in self.coded_actions:
            spec.load_policies(resolve)
        return self

    def changed(self, **changes: Any) -> RLConfig:
        """This config with ``changes`` (fields, groups as dicts merged into the group, or
        the flat names of :data:`FLAT_FIELDS`), validated; coded actions stay validated."""
        merged = self.model_dump()
        for key, value in changes.items():
            both = isinstance(value, dict) and isinstance(merged.get(key), dict)
            merged[key] = merged[key] | value if both else value
        return RLConfig.model_validate(merged).carry_validation(self)

    @classmethod
    def load(cls, path: str | Path) -> RLConfig:
        """Read a config from a JSON file."""
        return cls.model_validate_json(Path(path).read_text())


#: a training's envs step in this many groups, in turn (see rl/rollout.py; 16 envs or more)
TRAINING_GROUPS = 2


def world_groups(num_envs: int, for_training: bool = True) -> int:
    """The groups of envs a world built for training (and its evaluations) steps in."""
    return TRAINING_GROUPS if for_training and num_envs >= 16 else 1
