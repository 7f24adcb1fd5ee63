"""What the agents exchange: plans, code, RL configurations, verdicts (pydantic-validated).

Two layers. ``SubAction``, ``Plan``, ``RLAnswer``, ``Verdict`` and ``TaskPlan`` are what the
engine uses; the builtin agent and people (plan edits) build them, with defaults where a
default is harmless. What an LLM must answer is the stricter ``...Answer`` subclass: every
key the role must decide is required (optional values are ``null``, never absent); only free
comments (a plan's notes, a code explanation, a sub-action's reason, a verdict's suggestion)
may be left out; unknown keys are refused, so an empty object or an echoed JSON Schema never
passes as an answer. (The JSON Schema sent as ``response_format`` lists every key.)
Each answer class carries ``EXAMPLE``, a short answer for a task that is not in the catalog
(copying it is never right); repair prompts quote it instead of the whole schema.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rlgpt_tui.text import MAX_NAME, short_name

# A plan may hold a library of coded skills (open-ended play: one per achievement and a few
# helpers) and the RL sub-action that gets them all as high-level actions.
MAX_SUBACTIONS = 32
MAX_HIGH_LEVEL_ACTIONS = 32


def _identifier(value: str) -> str:
    value = value.strip()
    if not short_name(value):
        raise ValueError(
            f"{value[:60]!r} is not a short snake_case identifier (letters, digits, _; at most "
            f"{MAX_NAME} characters)"
        )
    return value


def _distinct(values: list[str] | None) -> list[str] | None:
    """A list of names with each name once, in first-seen order (a model may repeat one)."""
    return None if values is None else list(dict.fromkeys(values))


class SubAction(BaseModel):
    """One step of a decomposition: coded (code-as-policy) or learned with RL."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = Field(max_length=2000)
    mode: Literal["code", "rl"]
    reason: str = Field("", max_length=2000)
    # for rl sub-actions: names of coded sub-actions RL gets as extra high-level actions
    high_level_actions: list[str] = Field([], max_length=MAX_HIGH_LEVEL_ACTIONS)

    _check_name = field_validator("name")(_identifier)
    _distinct_actions = field_validator("high_level_actions")(_distinct)


class Plan(BaseModel):
    """The slow agent's decomposition of a task."""

    model_config = ConfigDict(extra="forbid")

    subactions: list[SubAction] = Field(min_length=1, max_length=MAX_SUBACTIONS)
    notes: str = Field("", max_length=4000)

    @field_validator("subactions")
    @classmethod
    def _one_learned(cls, subactions: list[SubAction]) -> list[SubAction]:
        learned = [s.name for s in subactions if s.mode == "rl"]
        if len(learned) > 1:
            raise ValueError(
                f"at most one rl sub-action (it learns the task's goal), got {learned}: make "
                "the others code, offered to it as high_level_actions"
            )
        names = [s.name for s in subactions]
        if len(set(names)) != len(names):
            raise ValueError(f"sub-action names must be distinct, got {names}")
        return subactions

    @classmethod
    def recorded(cls, data: Mapping[str, Any]) -> Plan:
        """A plan as a session recorded it, unchecked: the limits on plans changed since
        older sessions were recorded (names, lengths, counts), and none is ever refused."""
        subactions = [SubAction.model_construct(**sub) for sub in data.get("subactions", [])]
        return cls.model_construct(**{**data, "subactions": subactions})

    def snapshot(self) -> Plan:
        """A copy of this plan as a plain ``Plan`` (an LLM's stricter answer too), for an
        event to hold: later changes to this one never reach it."""
        return Plan.recorded(self.model_dump())

    def coded(self) -> list[SubAction]:
        return [s for s in self.subactions if s.mode == "code"]

    def learned(self) -> list[SubAction]:
        return [s for s in self.subactions if s.mode == "rl"]

    def summary(self) -> str:
        return "; ".join(f"{s.name} [{s.mode}]" for s in self.subactions)


class CodeAnswer(BaseModel):
    """The fast agent's code for a coded sub-action: ``def act(ctx): ...``."""

    model_config = ConfigDict(extra="forbid")

    code: str = Field(min_length=10, max_length=20_000)
    explanation: str = Field("", max_length=2000)

    # a routine of a made-up world (berries on bushes): the form of an answer, not a
    # template for any task of the catalog
    EXAMPLE: ClassVar[str] = json.dumps(
        {
            "code": "def act(ctx):\n"
            '    bush = ctx.nearest("bush")\n'
            "    if bush is None:\n"
            "        yield from ctx.explore(6)\n"
            "        return False\n"
            "    if not (yield from ctx.go_to(bush)):\n"
            "        return False\n"
            "    yield from ctx.face(bush)\n"
            "    for _ in range(3):\n"
            "        yield Action.DO\n"
            '    return ctx.has("berry")\n',
            "explanation": "walk to the nearest bush, face it and pick berries three times",
        }
    )

    # a place step of the same made-up world: it places the thing, it does not look for one
    PLACE_EXAMPLE: ClassVar[str] = json.dumps(
        {
            "code": 'def act(ctx):\n    return (yield from ctx.place("kiln"))\n',
            "explanation": "place a kiln on a free tile next to the player",
        }
    )

    # a make step of the same world: it walks to the station and makes the thing there
    MAKE_EXAMPLE: ClassVar[str] = json.dumps(
        {
            "code": "def act(ctx):\n"
            '    kiln = ctx.nearest("kiln")\n'
            "    if kiln is None:\n"
            "        return False\n"
            "    if not (yield from ctx.go_to(kiln)):\n"
            "        return False\n"
            '    return (yield from ctx.make("brick"))\n',
            "explanation": "walk next to the nearest kiln and make a brick there",
        }
    )

    @classmethod
    def example_for(cls, name: str) -> str:
        """The example for a sub-action ``name``: a place or make step's, or the
        routine's (small models copy the example's shape: shown only the routine, a make
        step hits the table like the routine picks berries)."""
        if name.startswith("place_"):
            return cls.PLACE_EXAMPLE
        return cls.MAKE_EXAMPLE if name.startswith("make_") else cls.EXAMPLE

    @field_validator("code")
    @classmethod
    def _defines_act(cls, value: str) -> str:
        if "def act(" not in value:
            raise ValueError("the code must define `def act(ctx):`, a generator of actions")
        return value


class RLAnswer(BaseModel):
    """The fast agent's RL configuration for a learned sub-action.

    ``high_level_actions``: the coded actions PPO gets; ``None`` keeps the plan's.
    ``observation``/``primitives``/``reward_code``: ``None`` keeps the default.
    ``start_from``: one of those coded actions that the policy starts as (RL that starts
    from the code); ``None``: the engine's default (the best code-alone solution of an
    earlier iteration, if any, else a uniform policy).

    The sample budget is the engine's (``samples_per_iteration`` within ``max_samples``, and
    a person's RL edit), never the agent's: answers once had to give ``samples``, which the
    engine ignored. Such an answer still parses; its ``samples`` is dropped (the answer as
    given stays in the LLM call's record).
    """

    model_config = ConfigDict(extra="forbid")

    observation: list[str] | None = Field(None, max_length=16)
    reward_code: str | None = Field(None, max_length=20_000)
    primitives: list[str] | None = Field(None, max_length=64)
    high_level_actions: list[str] | None = Field(None, max_length=MAX_HIGH_LEVEL_ACTIONS)
    start_from: str | None = Field(None, max_length=200)

    _distinct_names = field_validator("observation", "primitives", "high_level_actions")(_distinct)

    @model_validator(mode="before")
    @classmethod
    def _no_samples(cls, data: Any) -> Any:
        """An answer with the old ``samples`` key: the key is dropped, whatever its value."""
        if isinstance(data, dict) and "samples" in data:
            data = {k: v for k, v in data.items() if k != "samples"}
        return data


#: a verdict's reason opening with one of these says pass, or fail
_PASS_WORDS = frozenset({"pass", "passed", "passes", "success", "succeeded", "successful"})
_FAIL_WORDS = frozenset({"fail", "failed", "fails", "failure", "unsuccessful"})


class Verdict(BaseModel):
    """The critic's judgement of one sub-action."""

    model_config = ConfigDict(extra="forbid")

    success: bool
    reason: str = Field(max_length=2000)
    suggestion: str = Field("", max_length=2000)


class TaskPlan(BaseModel):
    """The task planner's ordered sub-tasks for a long-horizon task."""

    model_config = ConfigDict(extra="forbid")

    subtasks: list[str] = Field(min_length=1, max_length=12)


# -- what an LLM must answer: every decision explicit ----------------------------------------
class SubActionAnswer(SubAction):
    description: str = Field(min_length=1, max_length=2000)

    @model_validator(mode="after")
    def _rl_decides_its_actions(self) -> SubActionAnswer:
        if self.mode == "rl" and "high_level_actions" not in self.model_fields_set:
            raise ValueError(
                "high_level_actions is required for an rl sub-action: the names of the plan's "
                "code sub-actions it may call ([] for none)"
            )
        return self


class PlanAnswer(Plan):
    # pydantic narrows a field in a subclass; mypy sees list's invariance
    subactions: list[SubActionAnswer] = Field(  # type: ignore[assignment]
        min_length=1, max_length=MAX_SUBACTIONS
    )

    @model_validator(mode="before")
    @classmethod
    def _named_once(cls, data: Any) -> Any:
        """A sub-action a model lists again under the same name is kept once, the first
        (small models repeat runs of names; a person's plan is refused instead)."""
        if isinstance(data, dict) and isinstance(data.get("subactions"), list):
            seen: set[str] = set()
            kept = []
            for sub in data["subactions"]:
                name = sub.get("name") if isinstance(sub, dict) else None
                if isinstance(name, str):
                    if name.strip() in seen:
                        continue
                    seen.add(name.strip())
                kept.append(sub)
            data = data | {"subactions": kept}
        return data

    # the goal's steps of a made-up world (collect clay 3 times, place a kiln, make a brick)
    # turned into coded sub-actions, in order (code alone runs them in turn)
    EXAMPLE: ClassVar[str] = json.dumps(
        {
            "subactions": [
                {
                    "name": "collect_clay",
                    "description": "walk to the nearest clay and do until 3 clay are held",
                    "mode": "code",
                    "reason": "step 1: walking and collecting are easy to write",
                    "high_level_actions": [],
                },
                {
                    "name": "place_kiln",
                    "description": "face a free tile and place a kiln",
                    "mode": "code",
                    "reason": "step 2: one action once the clay is held",
                    "high_level_actions": [],
                },
                {
                    "name": "make_brick",
                    "description": "make a brick near the kiln",
                    "mode": "code",
                    "reason": "step 3: one action next to the kiln",
                    "high_level_actions": [],
                },
            ],
            "notes": "the goal's steps in order, each coded; RL where a step needs trial and error",
        }
    )


class RLAnswerStrict(RLAnswer):
    observation: list[str] | None = Field(max_length=16)
    reward_code: str | None = Field(max_length=20_000)
    primitives: list[str] | None = Field(max_length=64)
    high_level_actions: list[str] | None = Field(max_length=MAX_HIGH_LEVEL_ACTIONS)

    EXAMPLE: ClassVar[str] = (
        '{"observation": null, "reward_code": null, "primitives": ["noop", "do"], '
        '"high_level_actions": ["go_to_grass"]}'
    )


class VerdictAnswer(Verdict):
    reason: str = Field(min_length=1, max_length=2000)

    @model_validator(mode="after")
    def _reason_agrees(self) -> VerdictAnswer:
        """A reason that opens with the other verdict ("fail: ..." beside success true)
        contradicts itself: repaired like any invalid answer."""
        opening = re.match(r"\W*(\w+)", self.reason.lower())
        word = opening.group(1) if opening else ""
        said = True if word in _PASS_WORDS else False if word in _FAIL_WORDS else None
        if said is not None and said != self.success:
            raise ValueError(
                f"reason: it opens with {word!r} but success is {str(self.success).lower()}: "
                "make success and the reason say the same verdict"
            )
        return self

    # the form only: small models copy a concrete verdict word for word
    EXAMPLE: ClassVar[str] = (
        '{"success": true, "reason": "<what the runs show, with their counts>", '
        '"suggestion": "<how to improve it, or an empty string>"}'
    )


class TaskPlanAnswer(TaskPlan):
    # sub-tasks of a made-up world: every Crafter achievement is a catalog task
    EXAMPLE: ClassVar[str] = '{"subtasks": ["collect_clay", "place_kiln"]}'
