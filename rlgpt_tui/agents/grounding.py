"""Answers grounded in evidence: checks an LLM answer must pass, and the measured figure's
last word over a critic.

- An answer whose decisions repeat the prompt's example (a plan's descriptions, code, a
  verdict's reason) is invalid: :func:`example_check` raises the repair line, and the answer
  is repaired like any other invalid one; a copied free comment is dropped.
- A verdict whose reason names things (blocks, creatures, items) that its evidence does not
  show is invalid (:func:`evidence_check`).
- A verdict that contradicts the measured outcome it was given is overruled by the figure
  (:func:`overrule_rl`, :func:`overrule_code`: a pass for code whose every run failed, a
  fail whose reason denies what every run gained); the recorded reason says so and quotes
  the critic. With no verdict at all, runs that each gained what the step is named for
  pass it (:func:`measured_verdict`).
"""

from __future__ import annotations

import ast
import difflib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import BaseModel

from rlgpt_tui.agents.base import Execution
from rlgpt_tui.agents.schemas import SubAction, Verdict
from rlgpt_tui.envs.base import (
    ACHIEVEMENTS,
    ACTION_NAMES,
    BLOCK_NAMES,
    INVENTORY_ITEMS,
    MOB_NAMES,
    STATS,
    View,
)
from rlgpt_tui.envs.knowledge import Step
from rlgpt_tui.library.compose import calls_in, method_calls
from rlgpt_tui.skills.api import MAKEABLE
from rlgpt_tui.skills.checker import attribute_hint
from rlgpt_tui.skills.outcomes import CallEnd
from rlgpt_tui.text import clipped

#: things a verdict may name: the world's blocks, creatures and inventory items
_NOT_THINGS = {"unknown", "out_of_bounds"}
MIN_COPY_WORDS = 3  # an example's text shorter than this is a name, not a copied sentence

Check = Callable[[Any], None]


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9_]+", " ", text.lower()).split())


def _strings(value: Any) -> Iterable[str]:
    """Every string inside a JSON-like value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def example_texts(example: str) -> list[str]:
    """The sentences and code of an example answer (JSON), normalized; names left out."""
    texts = {_normal(s) for s in _strings(json.loads(example))}
    return sorted(t for t in texts if len(t.split()) >= MIN_COPY_WORDS)


def _copied(text: str, examples: list[str]) -> str | None:
    said = _normal(text)
    return next((t for t in examples if t in said), None)


def _free_comment(model: BaseModel, key: str) -> bool:
    """Is ``model.key`` a free comment (may be left out) rather than a decision?"""
    return key in ("notes", "explanation", "suggestion") or (
        key == "reason" and isinstance(model, SubAction)
    )


def _scrub(model: BaseModel, examples: list[str]) -> None:
    """Clear free comments that repeat an example; raise for a decision that does."""
    for key, value in list(model):
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, BaseModel):
                _scrub(item, examples)
        if not isinstance(value, str):
            continue
        copied = _copied(value, examples)
        if copied is None:
            continue
        if _free_comment(model, key):
            setattr(model, key, "")  # a copied comment says nothing: dropped
            continue
        raise ValueError(
            f"{key} repeats the prompt's example ({clipped(copied, 80)!r}): the example is "
            "for another task; answer for this task from its own evidence"
        )


def example_check(example: str) -> Check:
    """A check refusing answers whose decisions (a sub-action's description, code, a
    verdict's reason) repeat ``example``; copied free comments (notes, explanations,
    suggestions, a sub-action's reason) are dropped instead."""
    examples = example_texts(example)

    def check(answer: BaseModel) -> None:
        _scrub(answer, examples)

    return check


def step_order_check(steps: list[str], complete: bool = True) -> Check:
    """A check refusing a plan of code alone, of several sub-actions, that lists the goal's
    ``steps`` out of their order, leaves out one before a step it lists, or ends on a step
    before the goal's last: it runs its steps in turn, so a step whose materials no earlier
    step makes never succeeds (a 1.5B model planned make_wood_pickaxe before place_table,
    or after only a walk to a table), and a plan that stops short never reaches the goal
    (its collect_stone plan ended at make_wood_pickaxe). One coded sub-action may do the
    whole goal, under a name of its own: one named for a goal step after the first (a 1.5B
    model's first plan for collect_stone, in each of 5 sessions, was `collect_stone` alone,
    whose code mines stone without a pickaxe) is refused naming the steps before it.
    With ``complete`` False (a scored task: every step is an achievement of its own) only
    the order is checked."""
    rank = {name: i for i, name in enumerate(steps)}

    def check(plan: Any) -> None:
        subs = plan.subactions
        if any(sub.mode != "code" for sub in subs):
            return  # with RL, coded steps are options the policy picks in any order
        if complete and len(subs) == 1 and rank.get(subs[0].name, 0) > 0:
            name = subs[0].name
            raise ValueError(
                f"subactions: {name} (step {rank[name] + 1} of the goal) is planned alone, "
                f"but it needs what the steps before it make: plan "
                f"{', '.join(steps[: rank[name] + 1])}, in order, each coded"
            )
        if len(subs) < 2:
            return
        named = [sub.name for sub in subs if sub.name in rank]
        in_order = (
            "a plan of code alone runs its steps in turn: list the goal's steps in order "
            f"({', '.join(steps)})"
        )
        for before, after in zip(named, named[1:], strict=False):
            if rank[before] > rank[after]:
                raise ValueError(
                    f"subactions: {after} (step {rank[after] + 1} of the goal) is planned "
                    f"after {before} (step {rank[before] + 1}); {in_order}"
                )
        last = max((rank[n] for n in named), default=-1)
        if complete and subs[-1].name in rank and last < len(steps) - 1:  # ends early
            raise ValueError(
                f"subactions: the plan ends at {subs[-1].name} (step {last + 1} of "
                f"{len(steps)}), before the goal: add {', '.join(steps[last + 1 :])}; "
                f"{in_order}"
            )
        missing = [step for step in steps[:last] if step not in named]
        if missing:
            raise ValueError(
                f"subactions: {', '.join(missing)} missing before {steps[last]} (step "
                f"{last + 1} of the goal), which needs what they make; {in_order}"
            )

    return check


def step_named_check(step: str, what: str) -> Check:
    """A check refusing a plan without a sub-action named ``step``, the goal's one step that
    no other names for (a survival goal: staying alive; ``what`` it does). Told the task
    (stay alive: fight, shelter and sleep, drink and eat), a 1.5B model planned go_to_grass,
    place_plant and make_wood_pickaxe for survive_night, and in another session a tech tree
    of 17 steps before a `defend` and a `shelter`."""

    def check(plan: Any) -> None:
        if all(sub.name != step for sub in plan.subactions):
            raise ValueError(
                f"subactions: none is the goal's step `{step}` ({what}): plan a sub-action "
                f"named {step} that does it"
            )

    return check


def both(*checks: Check | None) -> Check:
    """One check running each of ``checks`` in turn."""

    def check(answer: Any) -> None:
        for each in checks:
            if each is not None:
                each(answer)

    return check


def thing_names() -> frozenset[str]:
    """Names of things a verdict's reason can point at (blocks, creatures, items)."""
    return frozenset((set(BLOCK_NAMES) - _NOT_THINGS) | set(MOB_NAMES) | set(INVENTORY_ITEMS))


def things_in(text: str) -> set[str]:
    """The thing names ``text`` mentions as whole words (``stone_pickaxe``, ``wood``)."""
    return set(_normal(text).split()) & thing_names()


def _with_parts(names: Iterable[str]) -> set[str]:
    """``names`` and their parts (``stone_pickaxe``: also ``stone`` and ``pickaxe``)."""
    out = set()
    for name in names:
        out |= {name, *name.split("_")}
    return out


def view_things(view: View) -> set[str]:
    """What a View shows: its blocks, creatures, held items and achievements."""
    seen = {block for row in view.grid for block in row}
    seen |= {name for name, _, _ in view.mobs}
    seen |= {item for item, count in view.inventory.items() if count}
    return _with_parts(seen | set(view.achievements))


def evidence_check(evidence: set[str]) -> Check:
    """A check refusing verdicts whose reason names things outside ``evidence`` (the thing
    names of the task, the sub-action and what the critic was shown)."""

    def check(verdict: Verdict) -> None:
        absent = sorted(things_in(verdict.reason) - evidence)
        if absent:
            raise ValueError(
                f"the reason names {', '.join(absent)}, which the evidence does not show: "
                "judge from the runs and figures given"
            )

    return check


def text_evidence(texts: Iterable[str]) -> set[str]:
    """Thing names ``texts`` (the task, the sub-action, figures) give a verdict to use."""
    return _with_parts(set(_normal(" ".join(texts)).split()))


def code_evidence(texts: Iterable[str], runs: list[Execution]) -> set[str]:
    """Thing names a code verdict may use: those of ``texts`` and of what every run showed
    before and after."""
    evidence = text_evidence(texts)
    for run in runs:
        evidence |= view_things(run.before) | view_things(run.after)
    return evidence


def _added(run: Execution) -> tuple[dict[str, int], list[str]]:
    """What a run added: each item that grew with its increase, and the new achievements."""
    had = run.before.inventory
    items = {i: n - had.get(i, 0) for i, n in run.after.inventory.items() if n > had.get(i, 0)}
    return items, sorted(set(run.after.achievements) - set(run.before.achievements))


def gains(run: Execution) -> list[str]:
    """What a run added: ``wood +1`` per inventory item that grew, ``achievement X`` per
    achievement unlocked."""
    items, new = _added(run)
    return [f"{i} +{n}" for i, n in items.items()] + [f"achievement {a}" for a in new]


def changed_runs(runs: list[Execution]) -> int:
    """The runs that added to the inventory or the achievements."""
    return sum(bool(gains(run)) for run in runs)


def run_errors(runs: list[Execution]) -> str:
    """The most common error message of runs that failed with one, as a sentence for a
    repair request (``''`` when none did): the critic may not pass it on."""
    details = Counter(r.detail for r in runs if r.end.failure and r.detail)
    if not details:
        return ""
    detail, n = details.most_common(1)[0]
    return f"{n} of {len(runs)} runs ended with this error: {detail}"


def idle_runs(runs: list[Execution]) -> str:
    """A sentence for a repair request when most runs returned before one action, with
    what their inventory held ('' otherwise): a 1.5B model's place_table checked for 2
    stone in worlds that held 2 wood, and its repairs kept the check."""
    idle = [r for r in runs if r.end is CallEnd.RETURNED and r.steps == 0]
    if not runs or 2 * len(idle) < len(runs):
        return ""
    held = Counter(
        ", ".join(f"{k} {v}" for k, v in sorted(r.before.inventory.items()) if v) or "nothing"
        for r in idle
    )
    common, n = held.most_common(1)[0]
    return (
        f"{len(idle)} of {len(runs)} runs returned before a single action: a check at the "
        f"start of the code was false there ({n} of them held {common})"
    )


def lacked(run: Execution, step: Step) -> list[str]:
    """The items ``step`` uses (a collect step's tool, a make step's materials) that ``run``
    started with too few of, and a make step's stations (table, furnace) not in its view."""
    short = [item for item, n in step.uses.items() if run.before.inventory.get(item, 0) < n]
    if stations := _stations(step):
        seen = view_things(run.before)
        short += [station for station in stations if station not in seen]
    return short


def _stations(step: Step) -> tuple[str, ...]:
    """The stations a make step is done near (a place step's ``where`` are tiles)."""
    return step.where if step.kind == "make" else ()


def did_step(run: Execution, name: str) -> bool:
    """Whether ``run`` did the step ``name``: gained its item (``collect_stone``: stone) or
    unlocked the achievement of its name."""
    items, new = _added(run)
    return name.partition("_")[2] in items or name in new


def _lacking(runs: list[Execution], step: Step) -> list[str]:
    """What any of ``runs`` lacked of what ``step`` needs, in order, once each."""
    return list(dict.fromkeys(thing for run in runs for thing in lacked(run, step)))


def needs_text(step: Step, items: Iterable[str] | None = None) -> str:
    """What ``step`` needs (of ``items``; all by default), e.g. "1 wood, a table in view"."""
    wanted = [*step.uses, *_stations(step)] if items is None else items
    return ", ".join(
        f"{step.uses[item]} {item}" if item in step.uses else f"a {item} in view" for item in wanted
    )


def waits_on_earlier(
    runs: list[Execution], name: str, step: Step | None, failed: Sequence[str]
) -> str | None:
    """Why ``name``'s code is neither judged nor repaired (None when it is): more than half
    its runs started without what the world's recipe says the step needs, no run did the
    step, and what they lacked is what an earlier step of the plan that ``failed`` makes.
    A 1.5B model's place_table got no valid code, and the make steps after it, whose runs
    never had a table, were judged and rewritten three times each (about 30,000 tokens):
    no code can show what it does before its table is there."""
    if step is None or not runs or not failed:
        return None
    if any(did_step(run, name) for run in runs):
        return None
    short = [run for run in runs if lacked(run, step)]
    if 2 * len(short) <= len(runs):
        return None
    lacking = _lacking(short, step)
    makers = [s for s in failed if s.partition("_")[2] in lacking]
    if not makers:
        return None
    return (
        f"not judged: {len(short)} of {len(runs)} runs started without "
        f"{needs_text(step, lacking)}, made by {', '.join(makers)}, which failed before "
        f"it; {name}'s code is kept as it is until then"
    )


def unmet_needs(name: str, steps: list[Step], runs: list[Execution]) -> str:
    """For a goal step ``name`` whose code failed: a note for the slow agent when most of
    its runs started without what the world's recipes say the step needs, naming the
    goal's earlier steps that provide it ('' otherwise, or for a name not among ``steps``).
    A 1.5B model planned collect_stone alone, and its runs never held a pickaxe."""
    step = next((s for s in steps if s.name == name), None)
    if step is None or not runs:
        return ""
    short = [run for run in runs if lacked(run, step)]
    if 2 * len(short) < len(runs):
        return ""
    needs = needs_text(step, _lacking(short, step))
    earlier = [s.name for s in steps[: steps.index(step)]]
    fix = (
        f"the goal's steps before it make that ({', '.join(earlier)}): plan them first, in "
        "order, each coded"
        if earlier
        else "nothing in the goal's steps makes it"
    )
    return (
        f"{name} needs {needs} (the world's recipes), which {len(short)} of its {len(runs)} runs "
        f"started without: {fix}"
    )


#: the ``ctx`` helpers that find where a thing is on the map
_LOOKUPS = frozenset({"nearest", "recall"})


def helper_check(answer: Any) -> None:
    """Refuses code that uses a ``ctx`` helper or an ``Action`` that does not exist, naming
    what to use instead (as the worker does when such a line runs). A 1.5B model's eat_cow
    went to the cow and called ``ctx.do()``: the dry run never reached the line, its runs
    ended in an AttributeError after the walk, and the crafter_score plan that ran it
    starved; its survive drank with ``Action.DRINK``."""
    from rlgpt_tui.skills.api import SkillContext

    try:
        tree = ast.parse(answer.code)
    except (SyntaxError, ValueError):
        return  # validation names it
    known = {name for name in dir(SkillContext) if not name.startswith("_")}
    known |= {"memory", "random", "skill"}  # set per call; skill is linked before it runs
    actions = [name.upper() for name in ACTION_NAMES]
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
            continue
        if node.value.id == "ctx" and node.attr not in known:
            hint = attribute_hint(node.attr, SkillContext)
            raise ValueError(f"code: ctx.{node.attr} is no helper{hint}")
        if node.value.id == "Action" and node.attr not in actions:  # a 1.5B model's DRINK
            close = difflib.get_close_matches(node.attr, actions, n=2, cutoff=0.6)
            raise ValueError(
                f"code: Action.{node.attr} is no primitive action (drinking, eating and "
                "hitting are Action.DO, facing water, a cow or a mob)"
                + (f"; did you mean {' or '.join(close)}?" if close else "")
            )


def stat_check(answer: Any) -> None:
    """Refuses code that reads a stat (health, food, drink, energy) from the inventory,
    where it never is: ``ctx.inventory.get('energy', 0)`` is always 0. A 1.5B model's
    survive slept `while ctx.inventory.get('energy', 0) < 9`, to the end of every call,
    and 62 of 64 players were killed by a zombie in their sleep (its `sleep` for wake_up,
    in the curriculum library, has the same loop)."""
    try:
        tree = ast.parse(answer.code)
    except (SyntaxError, ValueError):
        return  # validation names it
    inventory: ast.expr
    key: ast.expr | None
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):  # ctx.inventory['food']
            inventory, key = node.value, node.slice
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "has":  # ctx.has('energy')
                inventory, key = node.func, node.args[0] if node.args else None
            elif node.func.attr == "get":  # ctx.inventory.get('energy', 0)
                inventory, key = node.func.value, node.args[0] if node.args else None
            else:
                continue
        else:
            continue
        named = isinstance(inventory, ast.Attribute) and inventory.attr in ("inventory", "has")
        if named and isinstance(key, ast.Constant) and key.value in STATS:
            raise ValueError(
                f"code: {key.value} is a stat, not an inventory item: read "
                f"ctx.view.{key.value} (0-9)"
            )


def placed_item_check(name: str) -> Check | None:
    """For a step ``place_X`` where X is no inventory item (a table, a furnace, a plant): a
    check refusing code that looks for an X to go to (``ctx.nearest``, ``ctx.recall``).
    None exists until the step places it; a 1.5B model's place_table walked to the nearest
    table in each of 9 versions over two sessions (placing one there in some), and the
    repairs never saw why it found none. ``ctx.is_near`` (already placed?) stays allowed."""
    item = name.removeprefix("place_")
    if item == name or item in INVENTORY_ITEMS:  # stone is mined first: looking is right
        return None

    def check(answer: Any) -> None:
        try:
            lookups = method_calls(answer.code, _LOOKUPS)
        except (SyntaxError, ValueError):
            return  # validation names it
        for call in lookups:
            if item in _literal_args(call):
                raise ValueError(
                    f"code: {name} looks for a {item} (ctx.{method_name(call)}({item!r})), but "
                    f"there is none until this step places it: do not look for one; face a "
                    f"free tile and `yield from ctx.place({item!r})`"
                )

    return check


def method_name(call: ast.Call) -> str:
    """The method a call ``ctx.name(...)`` calls ("" for a plain function call)."""
    return call.func.attr if isinstance(call.func, ast.Attribute) else ""


def _literal_args(call: ast.Call) -> list[str]:
    return [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]


def _condition_calls(tree: ast.AST, method: str) -> list[ast.Call]:
    """The ``<expr>.<method>(...)`` calls in the conditions of ``tree``'s ifs and loops (a
    call in a return value decides nothing)."""
    tests = [n.test for n in ast.walk(tree) if isinstance(n, ast.If | ast.While | ast.IfExp)]
    return [call for test in tests for call in calls_in(test, {method})]


def recipe_check(step: Step) -> Check:
    """For code of a step the world's recipes describe: a check refusing code that never
    does the step (a place or make step without ``ctx.place``/``ctx.make`` of its item or
    its primitive action) or whose condition checks the inventory for an item the recipe
    does not involve (a material: a held tool may be checked; a return value decides
    nothing: a copied collect_wood's ``return ctx.has("wood")`` in collect_stone stays).
    A 1.5B model's place_table for collect_stone waited for "2 stone" (the task's material;
    the recipe uses 2 wood) in every version, and its make_stone_pickaxe hit the table with
    ``do`` instead of making the pickaxe."""
    involved = {step.product, *step.uses}
    primitive = f"{step.kind.upper()}_{step.product.upper()}"

    def check(answer: Any) -> None:
        try:
            tree = ast.parse(answer.code)
        except (SyntaxError, ValueError):
            return  # validation names it
        calls = calls_in(tree, {step.kind})
        for call in _condition_calls(tree, "has"):
            for item in _literal_args(call)[:1]:
                if item not in involved and item not in MAKEABLE:  # a tool may be checked
                    raise ValueError(
                        f"code: {step.name} checks for {item} (ctx.has({item!r})), which its "
                        f"recipe does not involve: {step.text()}"
                    )
        if step.kind == "collect":
            return
        does = any(
            method_name(call) == step.kind and step.product in _literal_args(call) for call in calls
        ) or any(isinstance(n, ast.Attribute) and n.attr == primitive for n in ast.walk(tree))
        if not does:
            raise ValueError(
                f"code: {step.name} never does the step: {step.text()}; the helper: "
                f"`{step.helper()}`"
            )

    return check


def runs_summary(runs: list[Execution]) -> str:
    """One line of counts over a coded action's sampled runs, measured from its Views: how
    they ended, what the player faced at the end, what was gained, health lost. A small
    model judges from these counts rather than from its reading of every map."""
    if not runs:
        return "No run to measure."

    def counted(values: Iterable[str]) -> str:
        return ", ".join(f"{k} {n}" for k, n in Counter(values).most_common())

    gained = [gain for run in runs for gain in gains(run)]
    changed = changed_runs(runs)
    hurt = sum(run.after.health < run.before.health for run in runs)
    n = len(runs)
    return (
        f"Measured over the {n} runs: ended {counted(r.end.value for r in runs)}; facing at "
        f"the end: {counted(r.after.block_at(*r.after.facing_position) for r in runs)}; "
        f"inventory or achievements changed in {changed} of {n}"
        f"{' (' + ', '.join(gained) + ')' if gained else ''}; health lost in {hurt} of {n}."
    )


def overrule_rl(
    verdict: Verdict,
    value: float,
    target: float,
    label: str,
    rates: dict[str, float] | None = None,
) -> Verdict:
    """The measured figure decides an RL verdict: success iff ``value`` reaches ``target``;
    a verdict saying otherwise is overruled, the critic quoted. So is a reason that denies
    what the evaluation's achievement ``rates`` show ("did not collect any coal" beside
    collect_coal in 69% of the episodes, which a 1.5B critic said of a policy at 0.69)."""
    measured = value >= target
    shown = {  # each thing an achievement with episodes names, by its highest rate
        thing: (name, rate)
        for name, rate in sorted((rates or {}).items(), key=lambda kv: kv[1])
        if rate > 0
        for thing in _with_parts([name]) & thing_names()
    }
    denied = sorted(denied_in(verdict.reason, set(shown)))
    if verdict.success == measured and not denied:
        return verdict
    said = "pass" if verdict.success else "fail"
    relation = "reaches" if measured else "is below"
    why = f"the measured figure: {label} {value:.2f} {relation} the target {target:.2f}"
    if denied:
        seen = sorted({shown[thing] for thing in denied})
        why = (
            "the evaluation: "
            + ", ".join(f"{name} in {rate:.0%} of its episodes" for name, rate in seen)
            + f", which the critic's reason denies; {why}"
        )
    return Verdict(
        success=measured,
        reason=f"overruled by {why} (the critic said {said}: {verdict.reason})"[:2000],
        suggestion=verdict.suggestion,
    )


#: words that make a clause deny what it names ("did not collect any wood")
_DENIAL = frozenset(
    {"not", "no", "never", "without", "nothing", "none", "didn", "didnt", "cannot", "failed"}
)
#: words that make a denial one of amount ("not enough wood", "only one wood"), which runs
#: that each gained some can still deserve
_AMOUNT = frozenset(
    {"enough", "only", "more", "fewer", "less", "all", "both", "twice", "another", "again"}
)


def gained_in_every_run(runs: list[Execution]) -> set[str]:
    """The thing names every run gained: items that grew and what each new achievement
    names (``collect_wood``: wood)."""
    each = [_with_parts([*items, *new]) & thing_names() for items, new in map(_added, runs)]
    return set.intersection(*each) if each else set()


def denied_gains(reason: str, runs: list[Execution]) -> set[str]:
    """What ``reason`` says was not gained although every run gained it."""
    return denied_in(reason, gained_in_every_run(runs))


def denied_in(reason: str, things: set[str]) -> set[str]:
    """Which of ``things`` ``reason`` denies (a clause with a denial, not about an
    amount: "did not collect any wood", not "not enough wood")."""
    denied: set[str] = set()
    for clause in re.split(r"[.,;:!?]|\bbut\b", reason.lower()):
        words = set(_normal(clause).split())
        if words & _DENIAL and not words & _AMOUNT and not any(w.isdigit() for w in words):
            denied |= words & things
    return denied


def measured_verdict(sub: SubAction, runs: list[Execution], why: str) -> Verdict:
    """The verdict when the critic gave none (``why``): a pass where every run gained a
    thing the step's name names (``collect_wood``: wood), else a fail saying so."""
    named = _with_parts([sub.name]) & thing_names() & gained_in_every_run(runs)
    if runs and named:
        n = len(runs)
        return Verdict(
            success=True,
            reason=(
                f"passed by the runs: every run gained {', '.join(sorted(named))} "
                f"({n} of {n}), which {sub.name} is named for (the critic gave no verdict: "
                f"{why})"
            )[:2000],
        )
    return Verdict(success=False, reason=f"no verdict: the critic's answer failed ({why})")


#: the share of a step's runs that must unlock its achievement to pass it without a critic
UNLOCKED_SHARE = 0.75


def passed_by_runs(runs: list[Execution], name: str, step: Step | None = None) -> Verdict | None:
    """A pass, without asking the critic, for a step its runs show done (None otherwise): a
    step ``name`` whose runs unlocked the achievement it is named for (place_table, eat_cow),
    in at least :data:`UNLOCKED_SHARE` of them (it makes one item a call), or a step
    ``collect_X`` whose every run gained X. A 1.5B critic failed a reused
    make_wood_pickaxe for collecting no wood, another one that made the pickaxe in 7 of 8
    runs, and most collect_wood steps whose every run gained wood; each answer cost about
    2,700 tokens, and each fail that stood rewrote working code.

    With the world's ``step`` (its recipe), a run that started without what the step uses
    and did not do it does not count, if the rest are more than half: a run whose earlier
    steps left no pickaxe says nothing of a collect_stone step. The same 1.5B critic failed
    a reused collect_stone whose 5 runs with a pickaxe each gained stone ("did not collect
    any stone in the first run", which had none), and a new make_stone_sword that made the
    sword in each of its 5 runs that held the wood and stone; the repairs cost 18,000
    tokens."""
    if not runs:
        return None
    n = len(runs)
    kind, _, item = name.partition("_")

    def excused(run: Execution) -> bool:  # it started short of what the step uses, and failed
        return step is not None and bool(lacked(run, step)) and not did_step(run, name)

    ready = [run for run in runs if not excused(run)]
    if 2 * len(ready) <= n:
        return None
    k = len(ready)
    needs = needs_text(step) if step else ""
    left_out = (
        f"; {n - k} of {n} runs started without {needs} and did not do it: they do not count"
        if k < n
        else ""
    )
    if kind == "collect" and item in gained_in_every_run(ready):
        which = "every run" if k == n else "every run that counts"
        return Verdict(
            success=True,
            reason=f"passed by the runs: {which} gained {item} ({k} of {k}), which {name} "
            f"is named for{left_out} (the critic was not asked)",
        )
    if name not in ACHIEVEMENTS:
        return None
    unlocked = sum(name in _added(run)[1] for run in ready)
    if unlocked < UNLOCKED_SHARE * k:
        return None
    return Verdict(
        success=True,
        reason=f"passed by the runs: {unlocked} of {k} runs unlocked {name}, the achievement "
        f"this step is named for{left_out} (the critic was not asked)",
    )


def overrule_code(verdict: Verdict, runs: list[Execution]) -> Verdict:
    """A code verdict that the runs contradict is overruled: a pass when every run failed
    (an error, a timeout, ...: code that never ran to an end does not pass), and a fail whose
    reason denies what every run gained ("did not collect any wood" beside wood +1 in each
    run)."""
    if not runs:
        return verdict
    n = len(runs)
    denied = set() if verdict.success else denied_gains(verdict.reason, runs)
    if denied:
        return Verdict(
            success=True,
            reason=(
                f"overruled by the runs: every run gained {', '.join(sorted(denied))} "
                f"({n} of {n}), which the critic's reason denies (the critic said fail: "
                f"{verdict.reason})"
            )[:2000],
            suggestion=verdict.suggestion,
        )
    if not verdict.success or not all(r.end.failure for r in runs):
        return verdict
    ends = ", ".join(sorted({r.end.value for r in runs}))
    return Verdict(
        success=False,
        reason=(
            f"overruled by the runs: every run failed ({ends}) (the critic said pass: "
            f"{verdict.reason})"
        )[:2000],
        suggestion=verdict.suggestion,
    )
