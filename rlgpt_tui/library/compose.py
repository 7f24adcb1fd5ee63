"""Chain several coded actions into one: ``act`` runs each one's ``act`` in order."""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TypeGuard

from rlgpt_tui.envs.base import ACHIEVEMENTS
from rlgpt_tui.envs.knowledge import Recipes
from rlgpt_tui.skills.api import MAKEABLE
from rlgpt_tui.skills.checker import CodeValidationError
from rlgpt_tui.skills.guard import GUARD_FUNCTION, SURVIVAL_GUARD, SurvivalGuard

#: the name of a plan's coded steps composed into one routine (code alone, in order)
COMPOSED_PLAN = "plan"


def compose_sources(
    parts: list[tuple[str, str]],
    recipes: Recipes | None = None,
    then: Sequence[str] = (),
    keeper: tuple[str, str | None] | None = None,
    guard: SurvivalGuard = SURVIVAL_GUARD,
) -> str:
    """See :func:`_compose`; code too deep for the parser here is a validation failure.
    ``recipes``: the world's, for the guards that wait on earlier steps' materials;
    ``then``: the steps that run after these (what they use is collected too);
    ``keeper``: a skill (name, source) run before a step when ``guard`` holds (the world's
    survival helper, :attr:`~rlgpt_tui.envs.knowledge.TechTree.before_each_step`); a
    source of None runs it as ``ctx.skill(name)`` (a policy skill)."""
    try:
        return _compose(parts, recipes, then, keeper, guard)
    except (SyntaxError, RecursionError, MemoryError, ValueError) as error:
        names = ", ".join(name for name, _ in ([keeper] if keeper else []) + parts)
        raise CodeValidationError(
            f"coded actions {names} cannot be chained ({type(error).__name__}): simplify their code"
        ) from None


#: stations a place step makes: one in sight serves the steps after it
STATIONS = ("table", "furnace")


#: a stat (0-9) at or below LOW is low; at or below TOPPED_UP with its source in sight, worth
#: topping up (the builtin library's ``survive`` eats and drinks at the same levels)
LOW, TOPPED_UP = 4, 7


def round_guard(
    name: str,
    recipes: Recipes | None = None,
    earlier: Collection[str] = (),
    later: Collection[str] = (),
) -> str | None:
    """The condition under which a plan's step ``name`` runs in a round, or None (always):
    a step making a tool (``make_wood_pickaxe``) is skipped while the tool is held, a step
    placing a station (``place_table``) while one is in sight, and one placing anything
    else (``place_stone``) once its achievement is unlocked. Called round after round,
    unguarded steps spend each round's materials again (a second wood pickaxe, a second
    table), and the later steps never get what they need.

    With the world's ``recipes``, a step also waits, round after round, for what the
    ``earlier`` steps of the plan obtain for it: a make or place step until some of each
    material is held (``make_wood_pickaxe`` while ``collect_wood`` has brought no wood), a
    collect step for its tool (``collect_stone`` until ``make_wood_pickaxe`` made the
    pickaxe); and a collect step rests while what the ``later`` steps use of its item is
    held: otherwise a make step walks back to its table each round for a pickaxe it has
    no wood for, and a collect step mines far more than the plan needs. (Waiting
    for the full amount deadlocked the builtin library's plan for place_table: its
    collect_wood stops at 1 wood, and its place_table, which gathers the second itself,
    never ran.)

    A step that restores a stat (the recipes' ``restores``: eat_cow food, collect_drink
    drink) runs when the stat is low, or not full with what restores it in sight. Run every
    round, such steps send the player to a cow and to water between every two tech-tree
    steps (what the guard is worth: docs/findings.md)."""
    kind, _, item = name.partition("_")
    done = None
    if recipes is not None and name in recipes.restores:
        stat, source = recipes.restores[name]
        low = f"ctx.view.{stat} <= {LOW}"
        seen = f" or ctx.view.{stat} <= {TOPPED_UP} and ctx.nearest({source!r}) is not None"
        done = f"({low}{seen if source else ''})"
    elif kind == "make" and item in MAKEABLE:
        done = f"not ctx.has({item!r})"
    elif kind == "place" and item in STATIONS:
        done = f"ctx.nearest({item!r}) is None"
    elif kind == "place" and name in ACHIEVEMENTS:
        done = f"{name!r} not in ctx.view.achievements"
    # some of each: a step that gathers the rest itself (the builtin library's) still runs
    waits = [f"ctx.has({m!r})" for m, _ in _inputs(name, recipes) if _made_by(m, earlier)]
    if kind == "collect" and (needed := _used(item, later, recipes)):
        done = f"not ctx.has({item!r}, {needed})"
    return " and ".join(filter(None, [*waits, done])) or None


def _used(item: str, steps: Collection[str], recipes: Recipes | None) -> int:
    """How much of ``item`` the make and place ``steps`` use together, by the recipes."""
    return sum(
        dict(_inputs(step, recipes)).get(item, 0)
        for step in steps
        if step.partition("_")[0] in ("make", "place")
    )


def _inputs(name: str, recipes: Recipes | None) -> list[tuple[str, int]]:
    """What the recipes say step ``name`` consumes or needs held: a make or place step's
    materials, a collect step's tools."""
    if recipes is None:
        return []
    kind, _, item = name.partition("_")
    if kind == "make" and item in recipes.make:
        return list(recipes.make[item][0].items())
    if kind == "place" and item in recipes.place:
        return list(recipes.place[item][0].items())
    block = recipes.source_of(item) if kind == "collect" else None
    return list(recipes.collect[block][0].items()) if block else []


def _made_by(item: str, steps: Collection[str]) -> bool:
    """Whether one of ``steps`` obtains ``item`` (``collect_wood``, ``make_wood_pickaxe``)."""
    return f"collect_{item}" in steps or f"make_{item}" in steps


def _compose(
    parts: list[tuple[str, str]],
    recipes: Recipes | None = None,
    then: Sequence[str] = (),
    keeper: tuple[str, str | None] | None = None,
    guard: SurvivalGuard = SURVIVAL_GUARD,
) -> str:
    """One source whose ``act(ctx)`` runs each part's ``act(ctx)`` in turn (a step whose
    work is already done in this world, or whose materials are not there yet, skipped:
    :func:`round_guard`; ``then`` names steps that run after these), marking where each
    begins (``ctx.begin_step``: the library counts each step's calls). ``keeper``
    (name, source) is no step: before each step that runs, the plan checks ``guard``
    (written into the plan as its function ``survival_due``) and runs the keeper only
    when it holds, marked ``ctx.begin_step(name)`` (what a survive skill there is worth,
    before every step and on the guard: docs/findings.md).

    Each part's top-level functions are renamed ``<part>_<function>`` (references too),
    so helpers with the same name in two parts do not collide. A part whose helpers (all
    but its ``act``) are those of an earlier part, word for word, adds only its ``act``,
    calling the earlier part's: the builtin library's skills are each its whole 18,000-
    character module, and a plan of four of them exceeded the code size limit. The result
    is validated like any other coded action before use.
    """
    bodies: list[str] = []
    calls: list[str] = []
    helpers_of: dict[str, str] = {}  # a part's helpers as written -> the prefix they got
    names = [name for name, _ in parts] + list(then)  # the steps in the order they run

    def add(name: str, source: str) -> None:
        """``source``'s functions as ``<name>_<function>``, its helpers only once."""
        tree = ast.parse(source)
        helpers = ast.unparse(ast.Module([n for n in tree.body if not _is_act(n)], []))
        prefix = helpers_of.get(helpers) if helpers else None
        if prefix is None:
            helpers_of[helpers] = f"{name}_"
            bodies.append(ast.unparse(_prefixed(tree, f"{name}_")))
        else:  # the helpers are already there: only this part's act, calling them
            acts = [n for n in _prefixed(tree, prefix).body if _is_act(n, prefix)]
            for act in acts:
                act.name = f"{name}_act"
            bodies.append(ast.unparse(ast.Module([*acts], [])))

    survive = ""
    if keeper is not None:
        kept, kept_source = keeper
        if kept_source is not None:
            add(kept, kept_source)
        run = (
            f"yield from {kept}_act(ctx)"
            if kept_source is not None
            else f"yield from ctx.skill({kept!r})"
        )
        survive = (
            f"if {GUARD_FUNCTION}(ctx):\n"
            + _indent(f"ctx.begin_step({kept!r})\n" + _isolated(run, kept))
            + "\n"
        )
    for index, (name, source) in enumerate(parts):
        add(name, source)
        call = f"ctx.begin_step({name!r})\n" + _isolated(f"yield from {name}_act(ctx)", name)
        when = round_guard(name, recipes, names[:index], names[index + 1 :])
        call = survive + call
        calls.append(f"if {when}:\n{_indent(call)}" if when else call)
    if keeper is not None:
        bodies.append(guard.source().rstrip("\n"))
    body = _indent("\n".join(calls))
    return "\n\n\n".join(bodies) + "\n\n\ndef act(ctx):\n" + body + "\n"


def _is_act(node: ast.stmt, prefix: str = "") -> TypeGuard[ast.FunctionDef]:
    return isinstance(node, ast.FunctionDef) and node.name == f"{prefix}act"


def _isolated(call: str, name: str) -> str:
    """``call`` such that an error in step ``name`` ends that step only (logged), and the
    round goes on with the next step: one step that raises must not stop every round of a
    long plan before its later steps. (The sandbox's budget is a BaseException: it still
    ends the whole call.)"""
    return f"try:\n    {call}\nexcept Exception as error:\n    ctx.log(f'{name} failed: {{error}}')"


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.splitlines())


def _prefixed(tree: ast.Module, prefix: str) -> ast.Module:
    """``tree`` with its top-level functions renamed ``<prefix><function>``, references
    too (so two sources' helpers of the same name do not collide)."""
    top = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in top:
            node.name = prefix + node.name
        elif isinstance(node, ast.Name) and node.id in top:
            node.id = prefix + node.id
    return tree


#: how deep library skills may call library skills through ``ctx.skill``
MAX_SKILL_DEPTH = 4


def method_calls(source: str, methods: Collection[str]) -> list[ast.Call]:
    """The ``<expr>.<method>(...)`` calls of ``source`` for ``methods``, in order (raises
    SyntaxError as ``ast.parse`` does)."""
    return calls_in(ast.parse(source), methods)


def calls_in(tree: ast.AST, methods: Collection[str]) -> list[ast.Call]:
    """The ``<expr>.<method>(...)`` calls inside ``tree`` for ``methods``, in order."""
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in methods
    ]
    return sorted(calls, key=lambda c: (c.lineno, c.col_offset))


@dataclass(frozen=True)
class SkillCall:
    """A ``<receiver>.skill("name")`` call in code."""

    name: str
    receiver: ast.expr
    call: ast.Call


def skill_calls(source: str) -> list[SkillCall]:
    """The ``<expr>.skill("name")`` calls of ``source`` with a literal name, in order."""
    found = []
    for call in method_calls(source, {"skill"}):
        if len(call.args) != 1 or call.keywords or not isinstance(call.func, ast.Attribute):
            continue
        (name,) = call.args
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            found.append(SkillCall(name.value, call.func.value, call))
    return found


def composed_steps(source: str) -> list[str]:
    """The steps a composed plan's source runs, in order (its ``ctx.begin_step`` marks);
    empty for code that is no composed plan, or that does not parse."""
    try:
        calls = method_calls(source, {"begin_step"})
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    names = [c.args[0].value for c in calls if c.args and isinstance(c.args[0], ast.Constant)]
    return [n for n in names if isinstance(n, str)]


def _entry(name: str) -> str:
    return f"skill_{name}_act"


def _rewrite_calls(source: str, policies: Collection[str] = ()) -> str:
    """``source`` with each ``ctx.skill("x")`` replaced by ``skill_x_act(ctx)`` in place
    (the rest of the text, comments included, unchanged), but for the names in
    ``policies`` (policy skills: the call stays, and runs the policy in the worker)."""
    data = source.encode()
    offsets = [0]  # byte offset of each line, as the parser counts lines (\n, \r\n, \r)
    for line in data.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    for found in reversed(skill_calls(source)):
        if found.name in policies:
            continue
        call = found.call
        assert call.end_lineno is not None and call.end_col_offset is not None  # parsed code
        start = offsets[call.lineno - 1] + call.col_offset
        end = offsets[call.end_lineno - 1] + call.end_col_offset
        receiver = ast.get_source_segment(source, found.receiver) or "ctx"
        new = f"{_entry(found.name)}({receiver})".encode()
        data = data[:start] + new + data[end:]
    return data.decode()


LINK_MARK = re.compile(r"^# library skill (\w+) \(ctx\.skill\(", re.MULTILINE)


def linked_skills(source: str) -> list[str]:
    """The library skills :func:`link_skills` appended to ``source``, in order."""
    return LINK_MARK.findall(source)


def link_skills(source: str, library: dict[str, str], policies: Collection[str] = ()) -> str:
    """``source`` with the library skills it calls (``yield from ctx.skill("name")``, also
    from within those skills) appended, each skill's top-level functions renamed
    ``skill_<name>_<function>``, and the calls pointed at them. A name in ``policies`` (a
    skill whose best-proven version is a trained policy) keeps its call: the policy skill
    loaded with the code runs it. Code without such calls is returned as it is. An unknown
    name raises ValueError naming the library's skills."""
    needed: dict[str, str] = {}
    frontier = [source]
    for _ in range(MAX_SKILL_DEPTH + 1):
        names = {c.name for text in frontier for c in skill_calls(text)}
        names -= set(needed) | set(policies)
        if not names:
            break
        unknown = sorted(n for n in names if n not in library)
        if unknown:
            known = ", ".join(sorted({*library, *policies})) or (
                "none (the session's library is empty)"
            )
            raise ValueError(
                f"ctx.skill({unknown[0]!r}): no library skill of that name; use one of {known}"
            )
        frontier = [library[n] for n in sorted(names)]
        needed.update((n, library[n]) for n in sorted(names))
    else:
        raise ValueError(f"ctx.skill calls nest deeper than {MAX_SKILL_DEPTH} library skills")
    if not needed:
        return source
    parts = [_rewrite_calls(source, policies).rstrip("\n")]
    for name, skill in needed.items():
        linked = _rewrite_calls(skill, policies)
        tree = _prefixed(_reachable(ast.parse(linked), "act"), f"skill_{name}_")
        parts.append(f"# library skill {name} (ctx.skill({name!r}))\n{ast.unparse(tree)}")
    return "\n\n\n".join(parts) + "\n"


def _reachable(tree: ast.Module, entry: str) -> ast.Module:
    """``tree`` with only what ``entry`` reaches: the top-level functions and assignments
    its code names (transitively), and every import; the module docstring dropped."""

    def defines(node: ast.stmt) -> set[str]:
        if isinstance(node, ast.FunctionDef):
            return {node.name}
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        return set()

    def uses(node: ast.stmt) -> set[str]:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}

    kept: set[int] = set()
    wanted = {entry}
    changed = True
    while changed:
        changed = False
        for i, node in enumerate(tree.body):
            if i not in kept and (defines(node) & wanted or isinstance(node, ast.Import)):
                kept.add(i)
                wanted |= uses(node)
                changed = True
    body = [n for i, n in enumerate(tree.body) if i in kept and not _is_docstring(n)]
    return ast.Module(body=body, type_ignores=[])


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def policy_call(name: str) -> str:
    """A coded sub-action's code that runs the library's policy skill ``name`` (its best
    version is a trained policy): one call, its result the sub-action's."""
    return f'def act(ctx):\n    return (yield from ctx.skill("{name}"))\n'


def is_policy_call(name: str, source: str) -> bool:
    """Is ``source`` :func:`policy_call` of ``name`` (no code of the skill itself: the
    library keeps no code version of it, the policy is the skill)?"""
    return source.strip() == policy_call(name).strip()
