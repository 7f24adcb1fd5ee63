"""A session's settings, declared once: each one's type, bounds and help, and the defaults of
the models that use them.

The CLI's flags (``cli/parser.py``: their type, default and help), the app's new-session form
(its defaults and checks) and the learn plan (``curriculum/loop.py``) are derived from these
models, so the same bad value gets the same one-line :class:`SettingError` in each. A setting
is named in messages by its command-line flag (``--num-envs``), the same in the form.

Light on purpose: ``rlgpt-tui --help`` imports it, so it imports pydantic and nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.fields import FieldInfo

if TYPE_CHECKING:
    from rlgpt_tui.tasks.catalog import Task

MAX_NUM_ENVS = 4096

# -- each setting: its type, bounds and help (a model gives its default) ----------------------
Iterations = Annotated[int, Field(ge=1, description="outer-loop iterations (max)")]
SamplesPerIteration = Annotated[
    int | None,
    Field(
        ge=1,
        description="PPO budget per iteration (default: 30,000; scored tasks: "
        "max-samples/iterations)",
    ),
]
SessionSamples = Annotated[int, Field(ge=1, description="total training samples")]
TokenBudget = Annotated[int | None, Field(ge=1, description="LLM token budget (default: none)")]
Target = Annotated[
    float | None,
    Field(
        description="target in the task's measure: a success rate in (0, 1] (default: 0.9), "
        "or a Crafter score in (0, 100] for scored tasks (default: 50.5, human experts)"
    ),
]
NumEnvs = Annotated[
    int | None,
    Field(ge=1, le=MAX_NUM_ENVS, description="parallel envs (default: the world's)"),
]
EvalEpisodes = Annotated[int, Field(ge=1, description="episodes per evaluation")]
FinalEpisodes = Annotated[
    int | None,
    Field(
        ge=1,
        description="episodes per candidate in the final choice on fresh worlds (default: 64; "
        "32 for scored tasks; fewer gives a wider interval)",
    ),
]
Seed = Annotated[int, Field(ge=0, description="random seed")]
MaxTries = Annotated[
    int,
    Field(
        ge=1,
        description="tries of a task not reached before the curriculum leaves it while other "
        "tasks are open",
    ),
]
Threshold = Annotated[
    float,
    Field(
        gt=0,
        le=1,
        description="fresh success rate at which a task is reached",
        json_schema_extra={"rule": "a success rate in (0, 1]"},
    ),
]
Hours = Annotated[
    float | None, Field(gt=0, description="budget: wall-clock hours in all, fractions allowed")
]


class SettingError(ValueError):
    """A setting out of its bounds, or not a number: one line naming its flag, the same
    whether the CLI, the app's form or the learn plan was given it."""


def flag(name: str) -> str:
    """The command-line flag of the setting ``name`` (``num_envs``: ``--num-envs``)."""
    return "--" + name.replace("_", "-")


class CheckedSettings(BaseModel):
    """Base: a model whose bad value raises :class:`SettingError` (one line) instead of
    pydantic's ValidationError."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, defer_build=True)

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as error:
            raise SettingError(setting_message(type(self), error)) from None

    @classmethod
    def default(cls, name: str) -> Any:
        """The model's default of the setting ``name``."""
        return cls.model_fields[name].default

    @classmethod
    def help(cls, name: str) -> str:
        """The setting's help (the CLI's, the form's hint)."""
        return cls.model_fields[name].description or ""


def setting_message(model: type[BaseModel], error: ValidationError) -> str:
    """The first of ``error``'s problems as one line naming the setting's flag."""
    problem = error.errors()[0]
    name = str(problem["loc"][0]) if problem["loc"] else ""
    info: FieldInfo | None = model.model_fields.get(name)
    extra = info.json_schema_extra if info is not None else None
    rule = extra.get("rule") if isinstance(extra, dict) else None
    value = problem.get("input")
    kind = problem["type"]
    bounds = problem.get("ctx", {})
    where = flag(name)
    if kind == "extra_forbidden":
        return f"{where} is not a setting"
    if kind.startswith(("int_", "float_")):
        whole = " whole" if kind.startswith("int_") else ""
        return f"{where}: {value!r} is not a{whole} number"
    if rule:
        return f"{where} must be {rule}, got {value}"
    if kind == "greater_than_equal":
        least = bounds["ge"]
        rule = "0 or more" if least == 0 else f"at least {least:g}"
        return f"{where} must be {rule}, got {value}"
    if kind == "greater_than":
        return f"{where} must be more than {bounds['gt']:g}, got {value}"
    if kind == "less_than_equal":
        return f"{where} must be at most {bounds['le']:g}, got {value}"
    return f"{where}: {problem['msg']}"


class SessionSettings(CheckedSettings):
    """One session's settings: ``rlgpt-tui run``'s flags and the app's new-session form."""

    iterations: Iterations = 4
    samples_per_iteration: SamplesPerIteration = None
    max_samples: SessionSamples = 200_000
    max_tokens: TokenBudget = None
    target: Target = None  # in the task's measure: checked by :meth:`check_target`
    num_envs: NumEnvs = None  # None: the world's default
    eval_episodes: EvalEpisodes = 64
    final_episodes: FinalEpisodes = None
    seed: Seed = 0

    def check_target(self, task: Task) -> None:
        """The target is in ``task``'s measure, or a :class:`SettingError`."""
        if self.target is None:
            return
        try:
            task.measure.check_target(self.target)
        except ValueError as error:
            raise SettingError(
                f"--target: {error} ({task.name} is judged by its {task.measure.label})"
            ) from None


class SessionPlan(CheckedSettings):
    """The learn's settings (``rlgpt-tui learn``'s flags, recorded with its learn record):
    what each session of a learn run gets, and ``max_tries``, the curriculum's cap on tries
    of a task not reached while other tasks are open."""

    iterations: Iterations = 3
    samples_per_iteration: SamplesPerIteration = None
    session_samples: SessionSamples = 200_000  # each session's training-sample cap
    num_envs: NumEnvs = None  # None: the world's default
    eval_episodes: EvalEpisodes = 64
    final_episodes: FinalEpisodes = None
    seed: Seed = 0
    max_tries: MaxTries = 3


class LearnBudgets(CheckedSettings):
    """A learn record's totals over every process that ran it; None: no limit."""

    max_hours: Hours = None
    max_tokens: Annotated[int | None, Field(ge=1, description="budget: LLM tokens in all")] = None
    max_samples: Annotated[
        int | None, Field(ge=1, description="budget: training samples in all")
    ] = None
    max_tasks: Annotated[
        int | None, Field(ge=1, description="budget: tasks run in all (choices)")
    ] = None


class LearnTarget(CheckedSettings):
    """The fresh success rate at which a learn record counts a task reached."""

    threshold: Threshold = 0.9


__all__ = [
    "MAX_NUM_ENVS",
    "CheckedSettings",
    "LearnBudgets",
    "LearnTarget",
    "SessionPlan",
    "SessionSettings",
    "SettingError",
    "flag",
    "setting_message",
]
