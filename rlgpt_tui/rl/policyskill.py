"""A saved trained policy as a skill that code calls (:class:`~rlgpt_tui.skills.policy.
PolicySkill`), and the checks a policy passes before the library takes it.

No torch: the weights are read as arrays (``allow_pickle=False``) and checked by their
shapes against the observation and actions of the configuration they were trained with.
"""

from __future__ import annotations

from rlgpt_tui.envs import ACTION_NAMES
from rlgpt_tui.envs.registry import WORLDS, world_info
from rlgpt_tui.rl.config import RLConfig
from rlgpt_tui.rl.policyfile import SavedPolicy, WeightsError, read_weights
from rlgpt_tui.skills.guard import SURVIVAL_GUARD
from rlgpt_tui.skills.policy import PolicySkill, PolicySkillError, actor_layers
from rlgpt_tui.tasks.catalog import get_task
from rlgpt_tui.tasks.statistics import wilson_interval


def policy_name(policy: SavedPolicy) -> str:
    """How a policy is named where skills are shown: ``collect_wood policy (craftax)``."""
    return f"{policy.task} policy ({policy.world})"


def check_policy(policy: SavedPolicy) -> None:
    """Refuse (:class:`PolicySkillError`, one line naming the fix) a policy whose world is
    unknown here or whose weights do not take its world's observation (the segments it was
    trained on) or give its action count."""
    if policy.world not in WORLDS:
        raise PolicySkillError(
            f"{policy_name(policy)}: world {policy.world!r} is unknown here (worlds: "
            f"{', '.join(WORLDS)}): remove the policy or import it where that world runs"
        )
    config = RLConfig.model_validate(policy.rl_config)
    if config.env != policy.world:
        raise PolicySkillError(
            f"{policy_name(policy)}: trained in {config.env}, filed under {policy.world}: "
            "export it again from its session"
        )
    try:
        arrays = read_weights(policy.weights)
        actor_layers(arrays, observation_size(config), action_count(config))
    except (WeightsError, PolicySkillError) as error:
        raise PolicySkillError(f"{policy_name(policy)}: {error}") from None


def observation_size(config: RLConfig) -> int:
    """The floats of the observation a policy of ``config`` reads."""
    info = world_info(config.env)
    if config.observation is None:
        return info.cls.observation_size
    segments = info.cls.observation_segments
    return sum(segments[s].stop - segments[s].start for s in config.observation)


def action_count(config: RLConfig) -> int:
    """The outputs of a policy of ``config``: its primitives, then its coded actions."""
    return len(config.primitives or ACTION_NAMES) + len(config.coded_actions)


def proven(policy: SavedPolicy) -> float:
    """The lower end of the 95% interval of its measured success (0.0: not measured so)."""
    if policy.measure != "success_rate" or policy.value is None or not policy.episodes:
        return 0.0
    return wilson_interval(round(policy.value * policy.episodes), policy.episodes)[0]


def policy_skill(policy: SavedPolicy, label: str = "", ref: str = "") -> PolicySkill:
    """``policy`` as a skill named after its task: it acts until the task's goal is met, the
    training's horizon (else the task's) ends it, or, where it was trained with
    ``hooks.interrupt_on_need``, a stat falls to that level. A policy of a survival task
    (survive_night) is the world's survive skill (:attr:`~rlgpt_tui.envs.knowledge.TechTree.
    before_each_step`, the one a composed plan calls when survival is due): it acts until
    :data:`~rlgpt_tui.skills.guard.SURVIVAL_GUARD` no longer holds (vitals above its levels,
    no hostile adjacent: it returns True), at most ``SURVIVAL_GUARD.steps`` steps a call.
    :class:`PolicySkillError` naming the fix for a policy that cannot be one: checked by
    :func:`check_policy`, over primitive actions only, in a world whose observation a View
    gives, with a goal a View shows (an achievement or items, or survival)."""
    check_policy(policy)
    name = policy_name(policy)
    config = RLConfig.model_validate(policy.rl_config)
    if config.coded_actions:
        names = ", ".join(c.name for c in config.coded_actions)
        raise PolicySkillError(
            f"{name}: it chooses coded actions ({names}); only a policy over primitive actions "
            "can be called as a skill for now: train one without coded actions"
        )
    if not world_info(config.env).views_observe:
        raise PolicySkillError(
            f"{name}: {config.env}'s observation is not computed from Views in the sandbox: "
            "call a policy trained in craftax"
        )
    task = get_task(policy.task)
    goal = task.goal
    keeper = world_info(config.env).documentation().tech_tree.before_each_step
    survives = bool(goal.survive and keeper)
    if goal.achievement is None and not goal.inventory and not survives:
        raise PolicySkillError(
            f"{name}: its task's goal ({task.goal_text}) is no state a call can meet: call a "
            "policy of a task with an achievement or items as its goal"
        )
    segments = world_info(config.env).cls.observation_segments
    features = (
        None
        if config.observation is None
        else tuple(
            i for s in config.observation for i in range(segments[s].start, segments[s].stop)
        )
    )
    primitives = config.primitives or list(ACTION_NAMES)
    need = config.hooks.interrupt_on_need
    horizon = config.horizon or task.horizon
    return PolicySkill(
        name=keeper if survives else policy.task,
        world=config.env,
        layers=actor_layers(
            read_weights(policy.weights), observation_size(config), action_count(config)
        ),
        actions=tuple(ACTION_NAMES.index(p) for p in primitives),
        features=features,
        goal_achievement=goal.achievement,
        goal_inventory=dict(goal.inventory or {}),
        max_steps=min(horizon, SURVIVAL_GUARD.steps) if survives else horizon,
        stop_at={s: need for s in ("health", "food", "drink")} if need and not survives else {},
        done=SURVIVAL_GUARD if survives else None,
        deterministic=policy.deterministic is not False,
        label=label or name,
        ref=ref,
    )
