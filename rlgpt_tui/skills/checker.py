"""The checker of untrusted (LLM- or user-written) code: its syntax tree and its budgets.

Code is checked on its syntax tree before it is compiled: only allow-listed node types,
imports, builtins and attribute names pass. Before compiling, the checker inserts a call
``__tick__()`` (a name the code itself can never write) at the start of every function body,
every ``for``/``while`` body, every comprehension step and every lambda body. The code runs
with a restricted ``__builtins__`` under :func:`budget`, which gives the calling thread a
tick budget (loop iterations and function calls) and a CPU-time deadline, so an endless
loop or runaway recursion ends with :class:`BudgetExceeded` instead of hanging training.
Outside any budget the limit is 0: untrusted code that runs unguarded (e.g. a ``finally:``
block run by ``generator.close()``) stops at its first tick. No trace hook is installed, so
trusted helpers called by the code run at full speed.

What is not enforced in-process: memory use. Large numbers (> 1,000,000) and ``**`` with a
large exponent are rejected statically, and ``range`` is capped, which closes the easy ways
to allocate huge objects; the rest is left to the step and time budgets. Loops that run
entirely inside builtins (e.g. ``map`` over a list that grows as it is read) tick no counter.
The operating-system boundary around the code (memory, files, sockets, processes) is the
sandbox's (:mod:`rlgpt_tui.sandbox`), whose workers run the code this module checked.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType
from typing import Any, NoReturn, TypeVar

from rlgpt_tui.envs.base import ACTION_NAMES
from rlgpt_tui.skills.outcomes import bounded_message

MAX_CONSTANT = 1_000_000
MAX_RANGE = 100_000

ALLOWED_MODULES: dict[str, Any] = {"math": math}

SAFE_BUILTIN_NAMES: tuple[str, ...] = (
    "abs",
    "all",
    "any",
    "bool",
    "dict",
    "divmod",
    "enumerate",
    "filter",
    "float",
    "frozenset",
    "int",
    "isinstance",
    "len",
    "list",
    "map",
    "max",
    "min",
    "reversed",
    "round",
    "set",
    "sorted",
    "str",
    "sum",
    "tuple",
    "zip",
    "True",
    "False",
    "None",
    "ValueError",
    "KeyError",
    "IndexError",
    "ZeroDivisionError",
    "Exception",
    "StopIteration",
)

_ALLOWED_NODES: tuple[type[ast.AST], ...] = (
    ast.Module,
    ast.FunctionDef,
    ast.arguments,
    ast.arg,
    ast.Return,
    ast.Yield,
    ast.YieldFrom,
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.For,
    ast.While,
    ast.If,
    ast.Break,
    ast.Continue,
    ast.Pass,
    ast.Expr,
    ast.BoolOp,
    ast.BinOp,
    ast.UnaryOp,
    ast.Compare,
    ast.Call,
    ast.IfExp,
    ast.Name,
    ast.Attribute,
    ast.Subscript,
    ast.Slice,
    ast.Constant,
    ast.List,
    ast.Tuple,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.DictComp,
    ast.SetComp,
    ast.GeneratorExp,
    ast.comprehension,
    ast.keyword,
    ast.Starred,
    ast.Lambda,
    ast.JoinedStr,
    ast.FormattedValue,
    ast.Try,
    ast.ExceptHandler,
    ast.Raise,
    ast.Assert,
    ast.Import,
    ast.ImportFrom,
    ast.alias,
    ast.expr_context,
    ast.boolop,
    ast.operator,
    ast.unaryop,
    ast.cmpop,
)

# Attributes that lead from ordinary objects to frames, code, globals or formatting tricks.
_FORBIDDEN_ATTRIBUTES = frozenset(
    {
        "format",
        "format_map",
        "mro",
        "gi_frame",
        "gi_code",
        "gi_yieldfrom",
        "cr_frame",
        "ag_frame",
        "f_globals",
        "f_locals",
        "f_back",
        "f_builtins",
        "tb_frame",
        "func_globals",
    }
)


class CodeValidationError(ValueError):
    """Untrusted code failed validation; the message names the line and the fix."""


class BudgetExceeded(BaseException):  # noqa: N818 - reads as an end reason
    """Raised inside untrusted code when its tick (loop) or time budget runs out.

    A BaseException so that ``except Exception`` in the untrusted code cannot swallow it;
    bare ``except:`` and ``except BaseException`` are rejected by validation.
    ``timed_out`` says which budget ran out: the CPU time (True) or the ticks.
    """

    def __init__(self, message: str, timed_out: bool = False):
        super().__init__(message)
        self.timed_out = timed_out


def _capped_range(*args: int) -> range:
    r = range(*args)
    if len(r) > MAX_RANGE:
        raise ValueError(f"range of {len(r)} items exceeds the limit of {MAX_RANGE}")
    return r


def safe_builtins() -> dict[str, Any]:
    """The ``__builtins__`` mapping untrusted code runs with."""
    table = {name: getattr(builtins, name) for name in SAFE_BUILTIN_NAMES if name[0].islower()}
    table.update(
        {
            name: getattr(builtins, name)
            for name in SAFE_BUILTIN_NAMES
            if name[0].isupper() and name not in ("True", "False", "None")
        }
    )
    table["range"] = _capped_range
    table["__import__"] = _guarded_import
    return table


def _guarded_import(name: str, *args: Any, **kwargs: Any) -> Any:
    if name in ALLOWED_MODULES:
        return ALLOWED_MODULES[name]
    raise ImportError(f"import of {name!r} is not allowed")


def _problem(node: ast.AST, what: str) -> str:
    return f"line {getattr(node, 'lineno', '?')}: {what}"


def check_tree(tree: ast.AST, provided: frozenset[str]) -> list[str]:
    """Return the list of problems in an untrusted syntax tree (empty when it passes)."""
    problems: list[str] = []
    allowed_names = set(SAFE_BUILTIN_NAMES) | {"range"} | provided
    denied_builtins = set(dir(builtins)) - allowed_names
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            problems.append(_problem(node, f"{type(node).__name__} is not allowed"))
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            module = node.module if isinstance(node, ast.ImportFrom) else None
            names = [module] if module else [a.name for a in node.names]
            for name in names:
                if name not in ALLOWED_MODULES:
                    allowed = ", ".join(ALLOWED_MODULES)
                    problems.append(
                        _problem(node, f"import of {name!r} is not allowed (only: {allowed})")
                    )
        elif isinstance(node, ast.Name):
            if node.id.startswith("_") and node.id != "_":
                problems.append(_problem(node, f"name {node.id!r} starts with an underscore"))
            elif node.id in denied_builtins:
                problems.append(_problem(node, f"builtin {node.id!r} is not allowed"))
        elif isinstance(node, ast.arg | ast.alias):
            # Names bound without an ast.Name (parameters, `import ... as`); one that
            # shadowed __tick__ would switch the budget off. An alias's imported name is
            # checked too: `from math import __loader__ as x` reaches the import machinery.
            bound_names = [node.arg] if isinstance(node, ast.arg) else [node.name, node.asname]
            for bound in bound_names:
                if bound and bound.startswith("_") and bound != "_":
                    problems.append(_problem(node, f"name {bound!r} starts with an underscore"))
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("_") or node.attr in _FORBIDDEN_ATTRIBUTES:
                problems.append(_problem(node, f"attribute {node.attr!r} is not allowed"))
        elif isinstance(node, ast.FunctionDef):
            if node.decorator_list:
                problems.append(_problem(node, "decorators are not allowed"))
            if node.name.startswith("_"):
                problems.append(_problem(node, f"function {node.name!r} starts with '_'"))
        elif isinstance(node, ast.ExceptHandler):
            caught = node.type
            if caught is None or (isinstance(caught, ast.Name) and caught.id == "BaseException"):
                problems.append(_problem(node, "catch specific exceptions, not everything"))
            if node.name and node.name.startswith("_") and node.name != "_":
                problems.append(_problem(node, f"name {node.name!r} starts with an underscore"))
        elif isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, int | float) and not isinstance(value, bool):
                if abs(value) > MAX_CONSTANT:
                    problems.append(_problem(node, f"number {value} exceeds {MAX_CONSTANT:,}"))
            elif isinstance(value, str | bytes) and len(value) > 10_000:
                problems.append(_problem(node, "string constant longer than 10,000 characters"))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            exponent = node.right
            if not (
                isinstance(exponent, ast.Constant)
                and isinstance(exponent.value, int | float)
                and abs(exponent.value) <= 8
            ):
                problems.append(_problem(node, "'**' needs a constant exponent of at most 8"))
    return problems


@dataclass
class CompiledProgram:
    """Validated code, compiled, with its module namespace evaluated under the sandbox."""

    name: str
    source: str
    namespace: dict[str, Any]
    filename: str

    def function(self, name: str) -> Callable[..., Any]:
        return self.namespace[name]


def compile_untrusted(
    source: str,
    name: str,
    provided: dict[str, Any],
    required_function: str,
    must_be_generator: bool = False,
    arity: int | None = None,
) -> CompiledProgram:
    """Validate ``source`` and run its top level in a confined namespace.

    ``provided`` are the names the code may use beyond the safe builtins (e.g. ``Action``).
    Raises :class:`CodeValidationError` with every problem found.
    """
    label = f"coded action {name!r}" if must_be_generator else f"{name!r}"
    try:
        tree = ast.parse(source, filename=f"<{name}>")
    except SyntaxError as error:
        raise CodeValidationError(
            f"{label}: syntax error at line {error.lineno}: {error.msg}; fix the code"
        ) from None
    problems = check_tree(tree, frozenset(provided))
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    for node in tree.body:
        allowed_top = ast.FunctionDef | ast.Import | ast.ImportFrom | ast.Assign | ast.AnnAssign
        is_docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if not isinstance(node, allowed_top) and not is_docstring:
            problems.append(
                _problem(node, "only functions, imports and constants at the top level")
            )
    target = functions.get(required_function)
    if target is None:
        problems.append(f"define a function `def {required_function}(...)`")
    else:
        if must_be_generator and not any(
            isinstance(n, ast.Yield | ast.YieldFrom) for n in ast.walk(target)
        ):
            problems.append(
                _problem(target, f"`{required_function}` must yield actions (a generator)")
            )
        if arity is not None and len(target.args.args) != arity:
            problems.append(
                _problem(target, f"`{required_function}` must take {arity} argument(s)")
            )
    if problems:
        raise CodeValidationError(f"{label} rejected: " + "; ".join(problems[:5]))
    filename = f"<untrusted:{name}>"
    code: CodeType = compile(insert_ticks(tree), filename, "exec")
    namespace: dict[str, Any] = {"__builtins__": safe_builtins(), "__name__": f"untrusted_{name}"}
    namespace.update(provided)
    namespace[TICK] = _tick
    try:
        with budget(max_ticks=10_000, seconds=1.0):
            exec(code, namespace)  # noqa: S102 - validated, confined, budgeted
    except BudgetExceeded as error:
        raise CodeValidationError(f"{label}: top level ran too long ({error})") from None
    except Exception as error:  # noqa: BLE001 - any failure of untrusted code is reported
        raise CodeValidationError(f"{label}: top level failed: {describe_error(error)}") from None
    return CompiledProgram(name=name, source=source, namespace=namespace, filename=filename)


def describe_error(error: BaseException) -> str:
    """``Type: message (line N)`` with the line in the untrusted code, when there is one."""
    line = None
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith("<untrusted:"):
            line = tb.tb_lineno
        tb = tb.tb_next
    where = f" (line {line})" if line else ""
    return f"{type(error).__name__}: {bounded_message(error)}{where}{_attribute_hint(error)}"


def _attribute_hint(error: BaseException) -> str:
    """For a name the code looked up on an object that lacks it, what to use instead: a
    primitive action's name is yielded (``yield Action.DO``), else the object's nearest
    public names."""
    name, obj = getattr(error, "name", None), getattr(error, "obj", None)
    if not isinstance(error, AttributeError) or not name or obj is None:
        return ""
    return attribute_hint(name, obj)


def attribute_hint(name: str, obj: Any) -> str:
    """What to use instead of attribute ``name``, which ``obj`` lacks ('' when unsure)."""
    if name.lower() in ACTION_NAMES:
        return f"; {name} is a primitive action: `yield Action.{name.upper()}`"
    if isinstance(obj, dict):
        return f"; it is a dict: use [{name!r}] or .get({name!r}, 0)"
    if isinstance(obj, tuple) and name in ("append", "extend", "insert"):
        return "; it is read-only (ctx.notes and ctx.begun are): ctx.log(message) adds a note"
    if name in ("x", "y") and hasattr(obj, "position"):  # ctx.view.x
        return "; the position is a pair: `x, y = ctx.view.position`"
    public = sorted(n for n in dir(obj) if not n.startswith("_"))
    close = difflib.get_close_matches(name, public, n=3, cutoff=0.5)
    return f"; did you mean {' or '.join(close)}?" if close else ""


TICK = "__tick__"
_Node = TypeVar("_Node", bound=ast.stmt | ast.expr)  # the nodes with a source position


class _Budget:
    """A tick and time budget; entered, it is the one its thread's ``__tick__`` counts in."""

    __slots__ = ("limit", "seconds", "ticks", "deadline", "reason", "timed_out", "previous")

    def __init__(self, limit: int, seconds: float, reason: str | None = None):
        self.limit = limit
        self.seconds = seconds
        self.ticks = 0
        self.deadline = 0.0  # set on entry
        self.reason = reason  # set once it ran out; None: "loop budget of {limit} exceeded"
        self.timed_out = False  # it ran out of time (not of ticks)
        self.previous: _Budget | None = None

    def __enter__(self) -> None:
        self.ticks = 0
        self.deadline = time.thread_time() + self.seconds
        self.previous = _current.budget
        _current.budget = self

    def __exit__(self, *exc_info: object) -> None:
        assert self.previous is not None  # set by __enter__
        _current.budget = self.previous


class _Current(threading.local):
    def __init__(self) -> None:
        # Outside any budget the limit is 0: unguarded untrusted code stops at its first tick.
        self.budget = _Budget(0, 0.0, "loop budget of 0 exceeded (code ran outside a budget)")


_current = _Current()


def _tick() -> bool:
    """Count one loop iteration or function call of untrusted code (inserted, not callable)."""
    state = _current.budget
    ticks = state.ticks = state.ticks + 1
    if ticks > state.limit:
        message = state.reason or f"loop budget of {state.limit} exceeded"
        raise BudgetExceeded(message, state.timed_out)
    if not ticks & 255 and time.thread_time() > state.deadline:
        state.limit = 0  # every later tick of this budget raises at once
        state.reason, state.timed_out = "time budget exceeded", True
        raise BudgetExceeded(state.reason, timed_out=True)
    return True


def end_budget(reason: str) -> NoReturn:
    """End the budget untrusted code runs under now: raise :class:`BudgetExceeded` with
    ``reason`` (a loop budget's end), and every later tick of that budget raises too."""
    state = _current.budget
    state.limit, state.reason = 0, reason
    raise BudgetExceeded(reason)


def budget(max_ticks: int, seconds: float) -> _Budget:
    """Run untrusted code in this thread under a tick budget and a CPU-time deadline.

    Use as ``with budget(...):``; the count and the deadline start on entry. Ticks are the
    loop iterations and function calls of the untrusted code (the calls inserted by
    :func:`insert_ticks`), not the work of trusted helpers it calls. Budgets nest: on exit
    the enclosing one (with its count) applies again.
    """
    return _Budget(max_ticks, seconds)


def _at_start(node: _Node, at: ast.stmt | ast.expr) -> _Node:
    """``node`` placed at the start of ``at`` (one line: it stands for that line)."""
    node.lineno = node.end_lineno = at.lineno
    node.col_offset = node.end_col_offset = at.col_offset
    return node


def _tick_call(at: ast.stmt | ast.expr) -> ast.Call:
    return _at_start(ast.Call(func=ast.Name(id=TICK, ctx=ast.Load()), args=[], keywords=[]), at)


class _TickInserter(ast.NodeTransformer):
    """Puts ``__tick__()`` into every function, loop, comprehension and lambda."""

    def _prepend(self, node: ast.FunctionDef | ast.For | ast.While) -> ast.AST:
        self.generic_visit(node)
        body = node.body
        first = body[0]
        docstring = (
            isinstance(node, ast.FunctionDef)
            and isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        )
        # The tick carries the line of the `def`/`for`/`while`, so a budget overrun points there.
        body.insert(1 if docstring else 0, _at_start(ast.Expr(_tick_call(node)), node))
        return node

    visit_FunctionDef = _prepend  # noqa: N815 - ast.NodeVisitor's naming
    visit_For = _prepend  # noqa: N815
    visit_While = _prepend  # noqa: N815

    def visit_comprehension(self, node: ast.comprehension) -> ast.AST:
        self.generic_visit(node)
        node.ifs.insert(0, _tick_call(node.target))  # __tick__() returns True
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:  # noqa: N802
        self.generic_visit(node)
        body = node.body
        node.body = ast.copy_location(
            ast.BoolOp(op=ast.And(), values=[_tick_call(body), body]), body
        )
        return node


def insert_ticks(tree: ast.Module) -> ast.Module:
    """The validated tree with budget counters inserted (modified in place)."""
    return ast.fix_missing_locations(_TickInserter().visit(tree))
