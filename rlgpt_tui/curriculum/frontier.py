"""The frontier of a learn record: where each achievement stands, and what the curriculum
reads to choose (the world's prerequisites, the library's measured records, how recent
evaluation episodes ended).

A task is *reached* once a finished session's fresh result (its chosen solution on worlds no
decision used) is at the threshold; *trying* while a session on it runs; *stopped* when its latest
session was stopped before it ended (it resumes); *failed* when tried and below; *not tried*
otherwise. A failed task *waits* until something new is reached after
its last try in the record: then it comes back, and not once it was tried ``max_tries``
times while other tasks are open, nor while open tasks never tried wait (those come first,
cheapest first: fewest steps from the world's recipes). Each choice records the facts it
stood on (:func:`choice_facts`: tries, best fresh figure, prerequisites reached), and a
reason whose words contradict them is marked (:func:`contradiction_mark`).
:func:`frontier` gives a sessions folder's learn record and its frontier as one JSON-able
object.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from rlgpt_tui.envs.base import ACHIEVEMENTS
from rlgpt_tui.envs.knowledge import TechTree
from rlgpt_tui.envs.registry import world_info
from rlgpt_tui.labels import agent_label, agent_labels
from rlgpt_tui.session_settings import SessionPlan
from rlgpt_tui.store import SessionStore
from rlgpt_tui.store.learning import LearnChoice, LearnStore, TaskRecord
from rlgpt_tui.tasks.catalog import load_catalog

REACHED, TRYING, FAILED, NOT_TRIED = "reached", "trying", "failed", "not tried"
STOPPED = "stopped"  # its latest session was stopped before it ended: it resumes
#: how many of the record's latest sessions tell how episodes end now
RECENT_SESSIONS = 3
#: a task not reached is not chosen again after this many tries while other tasks are
#: open (the learn's ``max_tries`` setting, ``--max-tries``): a task that keeps failing
#: would otherwise take a learn's tokens from the cheap open tasks (docs/findings.md)
MAX_TRIES: int = SessionPlan.default("max_tries")


@cache
def survival_tasks() -> tuple[str, ...]:
    """The catalog's tasks whose goal is to stay alive (survive_night)."""
    return tuple(name for name, task in load_catalog().items() if task.goal.survive)


def prerequisites(task: str) -> tuple[str, ...]:
    """The tasks ``task`` needs first, in the tech tree's order (from the task catalog)."""
    catalog = load_catalog()
    return tuple(catalog[task].prerequisites) if task in catalog else ()


def curriculum_tasks(tree: TechTree) -> list[str]:
    """What a curriculum proposes: every achievement, in the tech tree's order (fewer
    prerequisites first; the situational ones, whose moment may not come, after the others),
    then the survival tasks."""
    ordered = [name for name in tree.skills if name in ACHIEVEMENTS]
    ordered += [name for name in ACHIEVEMENTS if name not in ordered]
    ordered.sort(key=lambda name: (name in tree.situational, len(prerequisites(name))))
    return ordered + [name for name in survival_tasks() if name not in ordered]


@cache
def task_cost(env: str, task: str) -> int:
    """How many steps ``task`` takes from nothing (the world's recipes: place_table 2,
    collect_stone 4); where the recipes do not say (eat_cow, wake_up), one more than its
    prerequisites."""
    steps = world_info(env).documentation().steps_to(task)
    return len(steps) or len(prerequisites(task)) + 1


def death_tasks(tree: TechTree, end: str) -> list[str]:
    """The tasks that answer dying by ``end`` (the tech tree's skills for it that are tasks,
    fewer prerequisites first; the survival tasks last, for its helper that keeps the player
    alive)."""
    skills, _ = tree.deaths.get(end, ((), ""))
    catalog = load_catalog()
    tasks = [s for s in skills if s in catalog and s in ACHIEVEMENTS]
    tasks.sort(key=lambda name: len(prerequisites(name)))
    if tree.before_each_step in skills or not tasks:
        tasks += list(survival_tasks())
    return tasks


@dataclass
class FrontierRow:
    """One task's line of the frontier."""

    task: str
    status: str
    best: float | None = None
    ci: tuple[float, float] | None = None
    kind: str | None = None  # code, RL + code or RL
    tries: int = 0
    tokens: int = 0
    samples: int = 0
    authors: list[str] = field(default_factory=list)  # who wrote the code of its best session
    best_session: int | None = None
    last_session: int | None = None  # the running one, else the newest

    @property
    def figure(self) -> str:
        """``0.94 [0.85-0.98]``, or '-' before any fresh result."""
        if self.best is None:
            return "-"
        low, high = self.ci or (self.best, self.best)
        return f"{self.best:.2f} [{low:.2f}-{high:.2f}]"

    def as_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "status": self.status,
            "best": self.best,
            "ci95": list(self.ci) if self.ci else None,
            "kind": self.kind,
            "tries": self.tries,
            "tokens": self.tokens,
            "samples": self.samples,
            "authors": self.authors,
            "best_session": self.best_session,
            "last_session": self.last_session,
        }


@dataclass
class CurriculumState:
    """Everything a curriculum agent chooses from."""

    env: str
    threshold: float
    tree: TechTree
    tasks: list[str]  # in the curriculum's order
    rows: dict[str, FrontierRow]
    choices: list[LearnChoice]  # the record's choices so far
    recent_ends: Counter[str]  # how the record's latest sessions' evaluation episodes ended
    skipped: set[str] = field(default_factory=set)
    max_tries: int = MAX_TRIES

    def tries(self, task: str) -> int:
        row = self.rows.get(task)
        return row.tries if row is not None else 0

    def over_cap(self, task: str) -> bool:
        """Tried ``max_tries`` times or more and not reached."""
        return not self.reached(task) and self.tries(task) >= self.max_tries

    def cost(self, task: str) -> int:
        return task_cost(self.env, task)

    def untried(self) -> list[str]:
        """The open tasks never tried whose prerequisites are reached, cheapest first (the
        situational ones, whose moment may not come, and the survival tasks last)."""
        order = {t: i for i, t in enumerate(self.tasks)}
        last = self.tree.situational | set(survival_tasks())
        tasks = [t for t in self.ready() if not self.tries(t)]
        return sorted(tasks, key=lambda t: (t in last, self.cost(t), order[t]))

    def held_back(self, task: str) -> str:
        """Why ``task`` is not to be chosen now, though open ('' when it may be): tried
        ``max_tries`` times while other tasks are open, or failed while open tasks never
        tried wait."""
        if self.reached(task) or not self.tries(task):
            return ""
        if self.over_cap(task) and any(not self.over_cap(t) for t in self._open() if t != task):
            return (
                f"{task} was tried {self.tries(task)}x ({self.figure(task)}), the cap is "
                f"{self.max_tries} while other tasks are open"
            )
        untried = [t for t in self.untried() if t != task]
        if untried:
            return (
                f"{task} failed ({self.figure(task)}, tried {self.tries(task)}x) while open "
                f"tasks never tried wait: {', '.join(untried[:4])}"
            )
        return ""

    def reached(self, task: str) -> bool:
        return self.rows[task].status == REACHED if task in self.rows else False

    def waiting(self, task: str) -> bool:
        """Failed in this record, and nothing new reached since its last try."""
        last = max((c.position for c in self.choices if c.task == task), default=None)
        if last is None:
            return False
        mine = [c for c in self.choices if c.task == task and c.position == last][0]
        if mine.status == REACHED or mine.status == "stopped":
            return False
        return not any(c.position > last and c.status == REACHED for c in self.choices)

    def learned_since(self, task: str) -> list[str]:
        """What was reached after ``task``'s last try in this record."""
        last = max((c.position for c in self.choices if c.task == task), default=0)
        return [c.task for c in self.choices if c.position > last and c.status == REACHED]

    def _open(self) -> list[str]:
        """Not reached, not skipped by a person, not waiting for something new."""
        return [t for t in self.tasks if self.is_open(t)]

    def is_open(self, task: str) -> bool:
        return not self.reached(task) and task not in self.skipped and not self.waiting(task)

    def eligible(self, task: str) -> bool:
        """Open (not reached, not skipped by a person, not waiting for something new), and
        not over the cap on tries while other tasks are open."""
        if not self.is_open(task):
            return False
        return not self.over_cap(task) or all(self.over_cap(t) for t in self._open())

    def candidates(self) -> list[str]:
        return [t for t in self.tasks if self.eligible(t)]

    def ready(self) -> list[str]:
        """The open tasks whose prerequisites are all reached: the frontier."""
        return [t for t in self.candidates() if not self.weak(t)]

    def weak(self, task: str) -> list[str]:
        """``task``'s prerequisites that are not reached."""
        return [p for p in prerequisites(task) if not self.reached(p)]

    def figure(self, task: str) -> str:
        row = self.rows.get(task)
        if row is None or row.best is None:
            return "not tried" if row is None or not row.tries else "no fresh result"
        return f"best {row.best:.2f}"


def choice_facts(state: CurriculumState, task: str) -> dict[str, Any]:
    """What a choice of ``task`` stands on, as the record has it when it is made: its tries,
    best fresh figure and status, its prerequisites reached and missing, the threshold, and
    each task's figures (what a reason may cite)."""
    row = state.rows.get(task)
    figures = {
        name: [round(value, 2) for value in (r.best, *(r.ci or ())) if value is not None]
        for name, r in state.rows.items()
        if r.best is not None
    }
    return {
        "tries": state.tries(task),
        "best": row.best if row is not None else None,
        "status": row.status if row is not None else NOT_TRIED,
        "prerequisites_reached": [p for p in prerequisites(task) if state.reached(p)],
        "prerequisites_missing": state.weak(task),
        "threshold": state.threshold,
        "task": task,
        "figures": figures,  # task -> its best fresh figure and interval
    }


def facts_text(facts: dict[str, Any]) -> str:
    """``tried 1x, best 0.67; prerequisites reached: collect_wood`` ('' for no facts)."""
    if not facts:
        return ""
    best = "no fresh result" if facts.get("best") is None else f"best {facts['best']:.2f}"
    tries = facts.get("tries", 0)
    text = f"tried {tries}x, {best}" if tries else "not tried"
    reached = ", ".join(facts.get("prerequisites_reached") or []) or "none needed"
    missing = facts.get("prerequisites_missing") or []
    text += f"; prerequisites reached: {reached}"
    return text + (f" (missing: {', '.join(missing)})" if missing else "")


_DECIMAL = re.compile(r"(?<![\d.])(\d?\.\d+)(?!\d)")
_PERCENT = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d+)?)\s*%")
_NOT_TRIED = re.compile(
    r"\b(?:not|never)\s+(?:(?:yet|been|even)\s+)*(?:tried|attempted)|\buntried\b|"
    r"\bno (?:tries|attempts)\b|\bfirst (?:try|attempt)\b",
    re.IGNORECASE,
)
_ABOVE = re.compile(r"\babove (?:the |its )?threshold|\balready reached\b", re.IGNORECASE)


def contradictions(reason: str, facts: dict[str, Any]) -> list[str]:
    """What ``reason`` claims that the record (``facts``, :func:`choice_facts`) does not say:
    a success rate that is neither the threshold nor a figure of the chosen task or of a task
    the reason names (a rate made up for a task never tried), "not tried" of a task tried,
    or "above the threshold" of a task below it."""
    if not facts:
        return []
    found = []
    figures: dict[str, list[float]] = facts.get("figures") or {}
    task = facts.get("task", "")
    known = [float(facts.get("threshold", 0.0))]
    for name, values in figures.items():
        if name == task or re.search(rf"\b{re.escape(name)}\b", reason):
            known += [float(v) for v in values]
    cited = [float(v) for v in _DECIMAL.findall(reason)]
    cited += [float(v) / 100 for v in _PERCENT.findall(reason)]
    for value in cited:
        if value <= 1 and not any(abs(value - k) < 0.006 for k in known):
            found.append(f"cites {value:.2f}, no figure of the record")
    tries = facts.get("tries", 0)
    if tries and _NOT_TRIED.search(reason):
        found.append("says not tried")
    best, threshold = facts.get("best"), facts.get("threshold", 1.0)
    if _ABOVE.search(reason) and (best is None or best < threshold):
        found.append("says above the threshold")
    return found


def contradiction_mark(reason: str, facts: dict[str, Any]) -> str:
    """``⚠ contradicts the record: tried 1x, best 0.67 (says not tried)``, or '' when the
    reason's claims agree with the facts it stood on."""
    found = contradictions(reason, facts)
    if not found:
        return ""
    tries = facts.get("tries", 0)
    best = "no fresh result" if facts.get("best") is None else f"best {facts['best']:.2f}"
    record = f"tried {tries}x, {best}" if tries else "not tried"
    return f"⚠ contradicts the record: {record} ({'; '.join(found)})"


def choice_row(choice: LearnChoice) -> dict[str, Any]:
    """A choice as the frontier gives it: its record, the facts it stood on in words, and
    the mark of a model's reason that contradicts them (the rules' and a person's words
    come from the record, or are a person's)."""
    row = choice.as_dict()
    row["facts_text"] = facts_text(choice.facts)
    model = choice.chooser.startswith("llm:")
    row["mark"] = contradiction_mark(choice.reason, choice.facts) if model else ""
    return row


#: the frontier's columns, as the CLI's table and the app's screen show them
FRONTIER_COLUMNS = (
    "task",
    "status",
    "best fresh [95% CI]",
    "kind",
    "tries",
    "tokens",
    "samples",
    "code by",
)


def frontier_cells(row: dict[str, Any]) -> tuple[str, ...]:
    """One row of the frontier (an item of :func:`~rlgpt_tui.curriculum.loop.frontier`'s
    ``"frontier"``) as the cells of :data:`FRONTIER_COLUMNS`."""
    best = "-"
    if row["best"] is not None:
        low, high = row["ci95"] or (row["best"], row["best"])
        best = f"{row['best']:.2f} [{low:.2f}-{high:.2f}]"
    return (
        row["task"],
        row["status"],
        best,
        row["kind"] or "-",
        str(row["tries"]),
        f"{row['tokens']:,}",
        f"{row['samples']:,}",
        ", ".join(row["authors"]) or "-",
    )


def frontier_rows(
    store: SessionStore,
    env: str,
    threshold: float,
    tasks: list[str],
    trying: str | None = None,
) -> dict[str, FrontierRow]:
    """Each of ``tasks``' line from the store's sessions in world ``env``; ``trying``: the
    task a learn run works on now (shown trying even between its sessions)."""
    learn = LearnStore(store)
    records = learn.task_records(env)
    rows: dict[str, FrontierRow] = {}
    for task in tasks:
        record = records.get(task, TaskRecord(task))
        if record.best is not None and record.best >= threshold:
            status = REACHED
        elif task == trying or record.running_session is not None:
            status = TRYING
        elif record.last_session and store.get(record.last_session).status == STOPPED:
            status = STOPPED
        elif record.tries:
            status = FAILED
        else:
            status = NOT_TRIED
        best = record.best_session
        authors = agent_labels(learn.code_authors(best)) if best else []
        rows[task] = FrontierRow(
            task=task,
            status=status,
            best=record.best,
            ci=record.best_ci,
            kind=record.best_kind,
            tries=record.tries,
            tokens=record.tokens,
            samples=record.samples,
            authors=authors,
            best_session=record.best_session,
            last_session=record.running_session or record.last_session,
        )
    return rows


def recent_ends(store: SessionStore, choices: list[LearnChoice]) -> Counter[str]:
    """How the evaluation episodes of the record's latest finished sessions ended."""
    sessions = [c.session_id for c in choices if c.session_id and c.status != "running"]
    return LearnStore(store).episode_ends(sessions[-RECENT_SESSIONS:])


def world_tree(env: str) -> TechTree:
    """World ``env``'s tech tree (its documentation's)."""
    return world_info(env).documentation().tech_tree


def curriculum_state(store: SessionStore, learn_id: int) -> CurriculumState:
    """What the curriculum of learn record ``learn_id`` chooses from, as the store has it."""
    learn = LearnStore(store)
    run = learn.get(learn_id)
    tree = world_tree(run.env)
    tasks = curriculum_tasks(tree)
    choices = learn.choices(learn_id)
    return CurriculumState(
        env=run.env,
        threshold=run.threshold,
        tree=tree,
        tasks=tasks,
        rows=frontier_rows(store, run.env, run.threshold, tasks),
        choices=choices,
        recent_ends=recent_ends(store, choices),
        skipped=set(learn.skipped(learn_id)),
        max_tries=int(run.settings.get("max_tries") or MAX_TRIES),
    )


@dataclass
class _Nothing:
    """No running session: nothing spent so far."""

    tokens: int = 0
    total_samples: int = 0


_NOTHING = _Nothing()


def frontier(store: SessionStore) -> dict[str, Any] | None:
    """The folder's learn record and frontier as one JSON-able object (None: no record)."""
    learn = LearnStore(store)
    run = learn.latest()
    if run is None:
        return None
    tree = world_tree(run.env)
    tasks = curriculum_tasks(tree)
    choices = learn.choices(run.id)
    trying = (
        choices[-1].task
        if choices and choices[-1].status == "running" and (run.status == "running")
        else None
    )
    rows = frontier_rows(store, run.env, run.threshold, tasks, trying=trying)
    running = [c.session_id for c in choices if c.status == "running" and c.session_id]
    live = store.get(running[-1]) if running else _NOTHING  # an unfinished session's so far
    elapsed = run.elapsed_s
    return {
        "learn": run.id,
        "env": run.env,
        "library": run.library,
        "curriculum": agent_label(run.curriculum),
        "threshold": run.threshold,
        "status": run.status,
        "reason": run.reason,
        "hours": round(elapsed / 3600, 4),
        "budgets": run.budgets,
        "settings": run.settings,
        "reached": sum(1 for r in rows.values() if r.status == REACHED),
        "tokens": sum(c.tokens + c.curriculum_tokens for c in choices) + live.tokens,
        "samples": sum(c.samples for c in choices) + live.total_samples,
        "frontier": [r.as_dict() for r in rows.values()],
        "choices": [choice_row(c) for c in choices],
    }
