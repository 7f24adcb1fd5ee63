"""The skill library in the sessions database: filled from what sessions record, shared as a
folder of .py files (real SQLite files, real CLI processes), safe across kill -9 and bad
imports."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from sqlite_utils import Database
from textual.widgets import DataTable, Static, TextArea

from rlgpt_tui.agents.schemas import Plan, SubAction
from rlgpt_tui.engine import events as ev
from rlgpt_tui.library.shelf import ShelfSkill, SkillShelf
from rlgpt_tui.library.skill_library import SkillLibrary
from rlgpt_tui.library.skillfile import SkillFile
from rlgpt_tui.library.storage import COLUMNS, LibraryError
from rlgpt_tui.llm.settings import LLMSettings
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.session import Session
from rlgpt_tui.store import SessionStore
from rlgpt_tui.store.schema import MIGRATIONS, SCHEMA_VERSION
from rlgpt_tui.tasks.catalog import get_task
from rlgpt_tui.tasks.measure import Measure
from rlgpt_tui.tui.app import RlgptApp
from rlgpt_tui.tui.screens.sessions import SessionsScreen
from rlgpt_tui.tui.screens.skills import SkillsScreen
from tests.llm_server import ScriptedLLMServer
from tests.settings import tiny_settings
from tests.test_agents_engine import role_of, scripted_agent
from tests.waiting import until, wait_for

#: the hand-written skill files the tests use
SKILLS = Path(__file__).resolve().parent / "skills"
GO_TO_TREE = (SKILLS / "go_to_tree.py").read_text()
COLLECT_WOOD = (SKILLS / "collect_wood.py").read_text()


def evaluation(rate: float, episodes: int, calls: dict[str, int]) -> EvaluationSummary:
    """An RL policy's evaluation summary as the engine records it."""
    return EvaluationSummary(
        measure=Measure.SUCCESS_RATE,
        value=rate,
        ci95=(max(0.0, rate - 0.2), min(1.0, rate + 0.2)),
        episodes=episodes,
        success_rate=rate,
        coded_actions={
            name: {"calls": n, "steps": 5 * n, "end_reasons": {"returned": n}}
            for name, n in calls.items()
        },
    )


def record_session(
    store: SessionStore,
    agent: str,
    code: str,
    by: str = "agent",
    rate: float | None = 0.5,
    task: str = "collect_wood",
    skill: str = "go_to_tree",
) -> int:
    """A session on ``task`` whose fast agent (or a person) wrote ``skill``, used by an RL
    policy (``rate`` None: the session stopped before its evaluation)."""
    sid = store.create_session(task, "craftax", agent, {})
    events = [
        ev.SessionStarted(iteration=0, agent=agent, task=task, env="craftax", settings={}),
        ev.CodeWritten(iteration=0, agent=agent, subaction=skill, code=code, attempt=0, source=by),
        ev.SubActionDone(
            iteration=0,
            agent=agent,
            subaction=skill,
            mode="code",
            code=code,
            success=True,
            reason="ok",
            suggestion="",
        ),
    ]
    if rate is not None:
        result = evaluation(rate, 8, {skill: 10})
        events.append(
            ev.EvaluationDone(
                iteration=0, agent=agent, subject=f"{task} (RL policy)", result=result
            )
        )
    for event in events:
        store.record(sid, event)
    return sid


def cli(*argv: str, sessions: Path) -> subprocess.CompletedProcess:
    """The entry point in its own process."""
    return subprocess.run(
        [sys.executable, "-m", "rlgpt_tui.cli", "skills", *argv, "--sessions-dir", str(sessions)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def shown(store: SessionStore) -> list[tuple]:
    """What a person reads of each skill: name, version, world, author, docstring, code,
    where it was made, and its record."""
    return [
        (
            s.name,
            s.version,
            s.world,
            s.author,
            s.docstring,
            s.source,
            s.made_in,
            s.record.calls,
            s.record.ends_text,
            s.record.success_text,
        )
        for s in store.skills()
    ]


def test_sessions_fill_the_library_with_authors_versions_and_records(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    first = record_session(store, "llm:qwen", GO_TO_TREE, rate=0.5)
    record_session(store, "llm:other", GO_TO_TREE, rate=1.0)  # the same code, reused
    edited = GO_TO_TREE.replace("explore(6)", "explore(9)")
    record_session(store, "llm:qwen", edited, by="human")  # a person's version: v2
    skills = {(s.name, s.version): s for s in store.skills()}
    assert set(skills) == {("go_to_tree", 1), ("go_to_tree", 2)}
    v1, v2 = skills["go_to_tree", 1], skills["go_to_tree", 2]
    assert v1.author == "llm:qwen" and v1.made_in == f"session {first}, iteration 1"
    assert v1.docstring.startswith("Walk next to the nearest visible tree")
    # two sessions used v1: its record pools them (8 + 8 episodes, 4 + 8 successes)
    assert v1.record.calls == 20 and v1.record.ends_text == "returned 20"
    assert v1.record.success_text.startswith("collect_wood 0.75 [0.51-0.90] (2 evaluations")
    assert v2.author == "person" and v2.source == edited
    assert SkillLibrary(store).skill("go_to_tree").id == v2.id  # the newest unless asked
    # a folder's skill reused as it is: its author, and that it was made elsewhere
    folder = record_session(store, "llm:qwen", GO_TO_TREE + "\n", by="library:llm:small")
    v3 = SkillLibrary(store).skill("go_to_tree", version=3)
    assert v3.author == "llm:small"
    assert v3.made_in == f"reused from a library in session {folder}, iteration 1"
    # deleting a session keeps the library
    store.delete(first)
    assert SkillLibrary(store).skill("go_to_tree", version=1).record.calls == 20


def test_builtin_agent_code_is_labelled_builtin_library_and_code_only_runs_count(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path)
    sid = store.create_session("collect_wood", "crafter", "builtin", {})
    for event in (
        ev.SessionStarted(
            iteration=1, agent="builtin", task="collect_wood", env="crafter", settings={}
        ),
        ev.PlanProposed(
            iteration=1,
            agent="builtin",
            plan=Plan(subactions=[SubAction(name="collect_wood", mode="code", description="chop")]),
        ),
        ev.CodeWritten(
            iteration=1, agent="builtin", subaction="collect_wood", code=COLLECT_WOOD, attempt=0
        ),
        ev.SubActionDone(
            iteration=1,
            agent="builtin",
            subaction="collect_wood",
            mode="code",
            code=COLLECT_WOOD,
            success=True,
            reason="ok",
            suggestion="",
        ),
        ev.EvaluationDone(
            iteration=1,
            agent="builtin",
            subject="collect_wood (code only)",
            result=EvaluationSummary(
                measure=Measure.SUCCESS_RATE,
                value=1.0,
                ci95=(0.68, 1.0),
                episodes=8,
                success_rate=1.0,
            ),
        ),
    ):
        store.record(sid, event)
    (skill,) = store.skills("crafter")
    assert (skill.name, skill.author, skill.world) == ("collect_wood", "builtin library", "crafter")
    assert skill.made_in == f"session {sid}, iteration 2"
    assert skill.docstring == "chop"  # a template's: the plan's words, not the file's docstring
    assert skill.record.success_text == "collect_wood 1.00 [0.68-1.00] (1 evaluation, 8 episodes)"
    assert store.skills("craftax") == []


def plan_of_code_alone(steps: dict[str, str]) -> list[ev.Event]:
    """A place_table session's first events: a plan of ``steps`` (name: code), each coded
    by an LLM."""
    plan = Plan(subactions=[SubAction(name=n, mode="code", description=n) for n in steps])
    events = [
        ev.SessionStarted(
            iteration=0, agent="llm:qwen", task="place_table", env="craftax", settings={}
        ),
        ev.PlanProposed(iteration=0, agent="llm:qwen", plan=plan),
    ]
    for name, code in steps.items():
        events.append(
            ev.CodeWritten(iteration=0, agent="llm:qwen", subaction=name, code=code, attempt=0)
        )
    return events


def test_a_plan_of_code_alone_credits_its_evaluation_to_each_of_its_steps(tmp_path) -> None:
    """Code alone composes the plan's coded steps into one routine, evaluated as "plan":
    each step's library record carries that evaluation (the next session's slow agent
    reads it), not "not evaluated yet"."""
    store = SessionStore(tmp_path)
    sid = store.create_session("place_table", "craftax", "llm:qwen", {})
    steps = {"collect_wood": COLLECT_WOOD, "place_table": "def act(ctx):\n    yield 10\n"}
    events = plan_of_code_alone(steps)
    result = EvaluationSummary(
        measure=Measure.SUCCESS_RATE, value=1.0, ci95=(0.94, 1.0), episodes=64, success_rate=1.0
    )
    events.append(
        ev.EvaluationDone(iteration=0, agent="llm:qwen", subject="plan (code only)", result=result)
    )
    for event in events:
        store.record(sid, event)
    records = {s.name: s.record.success_text for s in store.skills("craftax")}
    assert records == {
        name: "place_table 1.00 [0.94-1.00] (1 evaluation, 64 episodes)" for name in steps
    }


def test_a_plan_of_code_alone_records_each_steps_calls(tmp_path) -> None:
    """The library showed 0 calls for every step of a plan run as code alone: the plan ran
    as one composed routine. The composed routine now marks where each step begins, and a
    real evaluation's record gives each step the calls that ran it (and a coded action run
    alone its own calls)."""
    from rlgpt_tui.engine.choice import Candidate, Candidates, choose
    from rlgpt_tui.engine.provenance import solution_provenance
    from rlgpt_tui.library.compose import COMPOSED_PLAN, compose_sources
    from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
    from rlgpt_tui.rl.evaluation import evaluate
    from rlgpt_tui.skills.validation import validate

    place = 'def act(ctx):\n    yield from ctx.place("table")\n'
    steps = {"collect_wood": COLLECT_WOOD, "place_table": place}
    composed = validate(COMPOSED_PLAN, compose_sources(list(steps.items())))
    config = RLConfig(task="place_table", coded_actions=[CodedActionSpec.of(composed)], num_envs=4)
    result = evaluate(config, only_coded=COMPOSED_PLAN, episodes=4, seed=3).summary()
    ran = (result.coded_calls or {})[COMPOSED_PLAN]
    begun = ran["begun"]
    assert ran["calls"] >= 4 and set(begun) == set(steps), ran
    # every call begins the plan's first step; the table only once wood is held (its guard
    # skips it while a table is in sight, and its own code may return at once)
    assert begun["collect_wood"] == ran["calls"] >= begun["place_table"] >= 1, begun

    store = SessionStore(tmp_path)
    sid = store.create_session("place_table", "craftax", "llm:qwen", {})
    events = plan_of_code_alone(steps)
    events.append(
        ev.EvaluationDone(iteration=0, agent="llm:qwen", subject="plan (code only)", result=result)
    )
    alone = evaluate(
        config.model_copy(
            update={"coded_actions": [CodedActionSpec(name="collect_wood", source=COLLECT_WOOD)]}
        ),
        only_coded="collect_wood",
        episodes=4,
        seed=3,
    ).summary()
    subject = "collect_wood (code only)"
    events.append(ev.EvaluationDone(iteration=1, agent="llm:qwen", subject=subject, result=alone))
    for event in events:
        store.record(sid, event)
    calls = {s.name: s.record.calls for s in store.skills("craftax")}
    own = (alone.coded_calls or {})["collect_wood"]["calls"]
    assert calls == {
        "collect_wood": begun["collect_wood"] + own,
        "place_table": begun["place_table"],
    }
    # the final choice of a plan of two authors (a person's place_table): its provenance
    # counts each step's calls on the fresh worlds, so the LLM-written share is measured
    candidates = Candidates()
    candidates.offer(Candidate(config, 0, 1.0, only_coded=COMPOSED_PLAN))
    final = choose(candidates, get_task("place_table"), 4, 30_003, 0.9)
    events[3].source = "human"  # place_table's code, by a person
    provenance = solution_provenance(events, final.solution())
    fresh = (final.solution().evaluation.coded_calls or {})[COMPOSED_PLAN]["begun"]
    assert provenance.calls == fresh and sum(fresh.values()) > 0, fresh
    llm = fresh["collect_wood"] / (fresh["collect_wood"] + fresh["place_table"])
    assert provenance.llm_share == llm and 0 < llm < 1


def test_exported_folder_imported_into_a_fresh_database_gives_the_same_skills(
    tmp_path: Path,
) -> None:
    source = SessionStore(tmp_path / "a")
    record_session(source, "llm:qwen", GO_TO_TREE)
    record_session(source, "llm:qwen", GO_TO_TREE.replace("explore(6)", "explore(9)"), "human")
    folder = tmp_path / "shared"
    done = cli("export", str(folder), sessions=tmp_path / "a")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in folder.iterdir()) == [
        "go_to_tree-craftax-v1.py",
        "go_to_tree-craftax-v2.py",
    ]
    # a plain Python file: the header is comments, the code follows unchanged
    text = (folder / "go_to_tree-craftax-v1.py").read_text()
    assert text.startswith('# /// rlgpt-skill\n# name = "go_to_tree"') and text.endswith(GO_TO_TREE)
    done = cli("import", str(folder), sessions=tmp_path / "b")
    assert done.returncode == 0, done.stderr
    assert "imported 2 skill(s)" in done.stdout and "go_to_tree v1, go_to_tree v2" in done.stdout
    fresh = SessionStore(tmp_path / "b")
    assert shown(fresh) == shown(source)
    assert [s.origin for s in fresh.skills()] == [f"import {folder}"] * 2
    assert SkillLibrary(fresh).import_folder(folder) == (
        [],
        2,
        0,
    )  # again: nothing new
    assert shown(SessionStore(tmp_path / "b")) == shown(source)
    listed = cli("list", sessions=tmp_path / "b")
    assert "go_to_tree v2" in listed.stdout and "person" in listed.stdout
    # its "made in" cell (CLI and app) names the other library, not a session of this one
    made_in = COLUMNS.index("made in")
    assert [s.cells()[made_in] for s in fresh.skills()] == [
        "imported from shared/ (there: session 1, iteration 1)",
        "imported from shared/ (there: session 2, iteration 1)",
    ]
    empty = cli("list", sessions=tmp_path / "nothing")
    assert "The library is empty" in empty.stdout and "skills import FOLDER" in empty.stdout
    show = cli("show", "go_to_tree", "--version", "1", sessions=tmp_path / "b")
    assert "author: llm:qwen" in show.stdout and "def act(ctx):" in show.stdout
    # `run --library FOLDER`: the slow agent sees what each skill measured, as from the DB
    from rlgpt_tui.library.shelf import folder_shelf

    line = folder_shelf(folder, "craftax").prompt_text(get_task("place_table"))
    assert line.startswith(
        "- go_to_tree (person; collect_wood 0.50 [0.22-0.78] (1 evaluation, 8 episodes); 10 calls)"
    )
    newest = fresh.skills("craftax")[-1]  # what `--library user` shows of the same skill
    assert (newest.label, newest.record.prompt_text) == (
        "go_to_tree v2",
        "collect_wood 0.50 [0.22-0.78] (1 evaluation, 8 episodes); 10 calls",
    )


def test_a_folder_that_adds_to_a_base_folder_reads_as_the_whole_library(tmp_path: Path) -> None:
    """A library that adds a skill and a new version of another to a shared folder holds
    those files and a BASE file naming the folder it adds to: `run --library`, `skills
    import` and table2.py read the base's skills with its own, its own file of a name in
    place of the base's. A base that is missing or leads back is one line, nothing read."""
    from rlgpt_tui.library.shelf import folder_shelf

    store = SessionStore(tmp_path / "a")
    record_session(store, "llm:qwen", GO_TO_TREE)
    record_session(store, "llm:qwen", COLLECT_WOOD, task="collect_wood", skill="collect_wood")
    base = tmp_path / "shared" / "base"
    assert cli("export", str(base), sessions=tmp_path / "a").returncode == 0
    mine = tmp_path / "shared" / "mine"
    mine.mkdir()
    (mine / "BASE").write_text("../base\n")
    old = (base / "go_to_tree-craftax-v1.py").read_text()
    (mine / "go_to_tree-craftax-v1.py").write_text(old.replace("explore(6)", "explore(9)"))
    added = old.replace('name = "go_to_tree"', 'name = "go_to_stone"').replace("tree", "stone")
    (mine / "go_to_stone-craftax-v1.py").write_text(added)
    shelf = folder_shelf(mine, "craftax")
    assert sorted(s.name for s in shelf.skills) == ["collect_wood", "go_to_stone", "go_to_tree"]
    assert "explore(9)" in shelf.find("go_to_tree").source  # its own file, not the base's
    done = cli("import", str(mine), sessions=tmp_path / "b")
    assert done.returncode == 0 and "imported 3 skill(s)" in done.stdout, done.stderr
    assert "explore(9)" in SessionStore(tmp_path / "b").skills("craftax", "go_to_tree")[0].source
    for broken in ("../nowhere\n", "../mine\n"):
        (mine / "BASE").write_text(broken)
        done = cli("import", str(mine), sessions=tmp_path / "c")
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1 and "nothing was imported" in lines[0]
        assert "BASE" in lines[0] and not SessionStore(tmp_path / "c").skills()


def test_bad_imports_print_one_line_and_change_nothing(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "lib")
    record_session(store, "llm:qwen", GO_TO_TREE)
    before = shown(store)
    SkillLibrary(store).export_folder(tmp_path / "good")
    good = (tmp_path / "good" / "go_to_tree-craftax-v1.py").read_text()
    cases = {
        "syntax": (good.replace("go_to_tree", "walk_on", 1) + "def broken(:\n", "fix the file"),
        "forbidden": (
            good.replace("go_to_tree", "reader", 1).replace(
                "def act(ctx):", "import os\n\n\ndef act(ctx):"
            ),
            "import",
        ),
        # the same name and version with other code: a clash with the library
        "clash": (good.replace("explore(6)", "explore(7)"), "rename it"),
    }
    for case, (text, fix) in cases.items():
        folder = tmp_path / case
        folder.mkdir()
        (folder / "a_fine_skill.py").write_text(good.replace("go_to_tree", "fine_one", 1))
        (folder / "bad.py").write_text(text)
        done = cli("import", str(folder), sessions=tmp_path / "lib")
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1, (case, done.stderr)
        assert "bad.py" in lines[0] and fix in lines[0] and "nothing was imported" in lines[0]
        assert shown(SessionStore(tmp_path / "lib")) == before, case  # not even the fine one


KILLED_WRITER = """
import sys
from pathlib import Path
from rlgpt_tui.store import SessionStore
from tests.test_library_store import GO_TO_TREE, record_session
store = SessionStore(sys.argv[1])
for i in range(10_000):
    record_session(store, "llm:qwen", GO_TO_TREE + f"# variant {i}\\n")
    if i == 3:
        Path(sys.argv[2]).touch()
"""


@pytest.mark.slow  # a stress: a writing process killed -9
def test_kill_9_while_sessions_record_leaves_a_consistent_library(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    writer = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(tmp_path / "db"), str(ready)],
        env=os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)},
        stderr=subprocess.PIPE,
    )
    wait_for(ready.exists, 60, "the writer to record a few sessions")
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=30)
    store = SessionStore(tmp_path / "db")
    done = [
        e
        for s in store.list_sessions()
        for e in store.events(s.id)
        if e["kind"] == "subaction_done"
    ]
    evaluations = sum(
        e["kind"] == "evaluation" for s in store.list_sessions() for e in store.events(s.id)
    )
    skills = store.skills()
    assert len(done) >= 4 and {s.source for s in skills} == {e["code"] for e in done}
    assert [s.version for s in skills] == list(range(1, len(skills) + 1))
    # every recorded evaluation gave its skill exactly one use, none without its event
    assert sum(s.record.evaluations for s in skills) == evaluations


def test_an_older_database_migrates_and_its_recorded_skills_join_the_library(
    tmp_path: Path,
) -> None:
    db = Database(tmp_path / "rlgpt.db")
    db.execute("CREATE TABLE schema_version (version INTEGER)")
    for migration in MIGRATIONS[:6]:  # a database written by schema version 6
        migration(db)
    db.execute("INSERT INTO schema_version VALUES (6)")
    db["sessions"].insert({"id": 1, "task": "collect_wood", "env": "craftax", "agent": "llm:q"})
    written = ev.CodeWritten(
        iteration=0, agent="llm:q", subaction="go_to_tree", code=GO_TO_TREE, attempt=0
    )
    finished = ev.SubActionDone(
        iteration=0,
        agent="llm:q",
        subaction="go_to_tree",
        mode="code",
        code=GO_TO_TREE,
        success=True,
        reason="",
        suggestion="",
    )
    for seq, event in ((1, written), (2, finished)):
        db["events"].insert(
            {
                "seq": seq,
                "session_id": 1,
                "kind": event.kind,
                "iteration": 0,
                "agent": "llm:q",
                "time": 0.0,
                "data": json.dumps(event.to_dict()),
            }
        )
    db["code_versions"].insert(
        {
            "session_id": 1,
            "event_seq": 1,
            "iteration": 0,
            "agent": "llm:q",
            "subaction": "go_to_tree",
            "attempt": 0,
            "source": "agent",
            "code": GO_TO_TREE,
            "valid": 1,
        }
    )
    db.conn.commit()
    db.conn.close()
    store = SessionStore(tmp_path)
    assert store.schema_version() == SCHEMA_VERSION
    assert store.policies() == []  # the table of trained policies (version 8), empty
    (skill,) = store.skills()
    assert (skill.name, skill.author, skill.made_in) == (
        "go_to_tree",
        "llm:q",
        "session 1, iteration 1",
    )


def test_library_screen_from_the_session_browser_lists_and_shows_skills(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    record_session(store, "llm:qwen", GO_TO_TREE)
    edited = GO_TO_TREE.replace("explore(6)", "explore(9)")
    record_session(store, "llm:qwen", edited, by="human", rate=1.0)

    async def scenario() -> None:
        app = RlgptApp(tmp_path)
        async with app.run_test(size=(120, 34)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, SessionsScreen), 10, "browser")
            await pilot.press("l")
            await until(pilot, lambda: isinstance(app.screen, SkillsScreen), 10, "the library")
            screen = app.screen
            table = screen.query_one(DataTable)
            await until(pilot, lambda: table.row_count == 2, 10, "the skills' rows")
            rows = [table.get_row_at(i) for i in range(table.row_count)]
            assert [r[:4] for r in rows] == [  # the kind column: code, or a policy skill
                ["go_to_tree v1", "code", "craftax", "llm:qwen"],
                ["go_to_tree v2", "code", "craftax", "person"],
            ]
            detail = str(screen.query_one("#skill-detail", Static).render())
            assert "by llm:qwen" in detail and "collect_wood 0.50" in detail
            assert screen.query_one("#skill-code", TextArea).text == GO_TO_TREE
            await pilot.press("down")

            def detail_text() -> str:
                return str(screen.query_one("#skill-detail", Static).render())

            await until(pilot, lambda: "go_to_tree v2" in detail_text(), 10, "v2's detail")
            detail = detail_text()
            assert "go_to_tree v2" in detail and "by person" in detail
            assert "versions: v1 llm:qwen, v2 person" in detail
            assert screen.query_one("#skill-code", TextArea).text == edited
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, SkillsScreen), 10, "closed")

    asyncio.run(scenario())


def test_a_session_started_from_the_library_shows_it_to_the_slow_agent_and_reuses_it(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path)
    record_session(store, "llm:qwen", GO_TO_TREE)
    task = get_task("collect_wood")
    walk = SubAction(name="go_to_tree", description="walk to a tree", mode="code")
    with ScriptedLLMServer(responder=scripted_agent) as server:
        llm = LLMSettings.resolve(server.base_url, server.model, backoff=0.01, max_retries=1)
        session = Session.create(store, tiny_settings(), llm, library="user")
        session.team.slow.plan(task, [])
        prompt = server.requests[-1]["messages"][-1]["content"]
        steps, others = prompt.split("Other skills, none of them a step of this goal")
        assert "- go_to_tree (llm:qwen): Walk next to the nearest visible tree" in others
        assert "collect_wood 0.50" not in prompt  # a record only for a step's skill
        assert "(builtin library): gather wood and place a crafting table" in prompt  # builtin
        asked = len(server.requests)
        # reuse first: the library's code, no LLM call, recorded as the skill author's
        assert session.team.fast.write_code(task, walk) == GO_TO_TREE
        assert len(server.requests) == asked and session.team.fast.origin == "library:llm:qwen"
        # a repair asks the LLM for new code (which becomes a new version)
        lost = "def act(ctx):\n    yield Action.NOOP\n"
        session.team.fast.write_code(task, walk, previous=lost, problem="it got lost")
        assert role_of(server.requests[-1]["messages"]) == "fast"
        assert session.team.fast.origin == "agent"
        # the choice is recorded and used again on resume
        assert store.get(session.id).settings["library"] == "user"
        store.finish(session.id, "stopped", "stopped")
        resumed = Session.resume(store, session.id, llm)
        assert resumed.team.fast.shelf.find("go_to_tree").author == "llm:qwen"
        empty = Session.create(store, tiny_settings(), llm, library="empty")
        empty.team.slow.plan(task, [])
        assert (
            "None: every coded sub-action gets new code."
            in (server.requests[-1]["messages"][-1]["content"])
        )
        default = Session.create(store, tiny_settings(), llm)  # the default: user
        assert store.get(default.id).settings["library"] == "user"
        assert default.team.fast.shelf.find("go_to_tree").author == "llm:qwen"  # yours first
        assert default.team.fast.shelf.find("place_table").author == "builtin library"
        # own: your library alone, no hand-written skill filling the names it lacks
        own = Session.create(store, tiny_settings(), llm, library="own")
        own.team.slow.plan(task, [])
        prompt = server.requests[-1]["messages"][-1]["content"]
        assert "- go_to_tree (llm:qwen" in prompt and "builtin library" not in prompt
        assert own.team.fast.shelf.find("place_table") is None
        assert [s.name for s in own.team.fast.shelf.skills] == ["go_to_tree"]
    many = SkillShelf(
        "user", [ShelfSkill(f"skill_{i}", "x" * 250, "", "person") for i in range(300)]
    )
    text = many.prompt_text(task)
    assert len(text) < 3_100 and text.endswith("more not shown)")


def test_a_session_reuses_the_best_proven_version_not_a_newer_one_that_failed_or_never_ran(
    tmp_path: Path,
) -> None:
    """A curriculum's stopped crafter_score session left unevaluated versions (one crashing
    on every call) newer than versions that measured 0.56 and 1.00; the next session reused
    the new ones. A session reuses the best proven version, from the database or a folder."""
    store = SessionStore(tmp_path / "lib")
    proven = GO_TO_TREE
    worse = GO_TO_TREE.replace("explore(6)", "explore(2)")
    untried = GO_TO_TREE.replace("explore(6)", "explore(3)")
    better = GO_TO_TREE.replace("explore(6)", "explore(9)")
    task = get_task("collect_wood")
    walk = SubAction(name="go_to_tree", description="walk to a tree", mode="code")

    def reused(library: str) -> str:
        session = Session.create(store, tiny_settings(), llm, library=library)
        code = session.team.fast.write_code(task, walk)
        assert len(server.requests) == 0  # reuse: no LLM call
        return code

    with ScriptedLLMServer(responder=scripted_agent) as server:
        llm = LLMSettings.resolve(server.base_url, server.model, backoff=0.01, max_retries=1)
        record_session(store, "llm:qwen", proven, rate=1.0)  # v1: 8 of 8
        record_session(store, "llm:qwen", worse, rate=0.0)  # v2: 0 of 8
        record_session(store, "llm:qwen", untried, rate=None)  # v3: never evaluated
        assert [s.version for s in store.skills()] == [1, 2, 3]
        assert reused("own") == reused("user") == proven
        folder = tmp_path / "shared"
        assert cli("export", str(folder), sessions=tmp_path / "lib").returncode == 0
        assert reused(str(folder)) == proven
        for _ in range(3):  # v4 measures 24 of 24: proven further than v1's 8 of 8
            record_session(store, "person", better, by="human", rate=1.0)
        assert reused("own") == better
    fresh = SessionStore(tmp_path / "nothing proven")
    record_session(fresh, "llm:qwen", worse, rate=0.0)
    record_session(fresh, "llm:qwen", untried, rate=None)
    with ScriptedLLMServer(responder=scripted_agent) as server:
        llm = LLMSettings.resolve(server.base_url, server.model, backoff=0.01, max_retries=1)
        store = fresh
        assert reused("own") == untried  # none proven: the newest


def test_a_persons_code_edit_runs_library_skills_through_ctx_skill(tmp_path: Path) -> None:
    """A person's code (dialog, file or control plane) may call the session's library with
    ``yield from ctx.skill("name")``: the skill's code is linked in, validated once, and it
    runs in the world; an unknown name is refused with the library's names."""
    from rlgpt_tui.engine.control import EditRefused
    from rlgpt_tui.envs.craftax_world import CraftaxWorld
    from rlgpt_tui.rl.episodes import run_one_call_each

    store = SessionStore(tmp_path)
    session = Session.create(store, tiny_settings(), library="builtin")
    mine = "def act(ctx):\n    if (yield from ctx.skill('go_to_tree')):\n        yield Action.DO\n"
    edit = session.control.edit_code("collect_wood", mine)
    linked = mine.replace("ctx.skill('go_to_tree')", "skill_go_to_tree_act(ctx)")
    assert edit.action.source.startswith(linked)
    assert "def skill_go_to_tree_act(ctx):" in edit.action.source
    world = CraftaxWorld(num_envs=4, seed=3)
    world.reset(3)
    before, after, records = run_one_call_each(world, edit.action)
    world.close()
    assert all(not r.end.failure for r in records)
    pairs = list(zip(before, after, strict=True))
    assert any(b.position != a.position for b, a in pairs)
    # the skill said it reached a tree, so the person's `do` chopped it
    assert any(a.inventory.get("wood", 0) > b.inventory.get("wood", 0) for b, a in pairs)
    wrong = mine.replace("go_to_tree", "fly_to_tree")
    try:
        session.control.edit_code("collect_wood", wrong)
    except EditRefused as error:
        assert "ctx.skill('fly_to_tree'): no library skill of that name" in str(error)
        assert "go_to_tree" in str(error)
    else:
        raise AssertionError("an unknown library skill was accepted")


def test_a_plan_exported_for_a_task_has_each_step_done_by_the_skill_proven_on_it(
    tmp_path: Path,
) -> None:
    """A 1.5B model's collect_drink session named its skill go_to_water, and its eat_plant
    never once ate a plant: a plan of the library's skills by name alone left drinking out
    and kept eat_plant. `skills export DIR --plan TASK` composes the plan that table2.py
    runs (`--script plan`): each step by the skill named like it, else by the one proven on
    the task of that name (not a step's own skill that merely served beside it), never by
    one that failed there; and that plan, run in the world, drinks through go_to_water."""
    from rlgpt_tui.library.compose import COMPOSED_PLAN
    from rlgpt_tui.library.shelf import folder_shelf
    from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
    from rlgpt_tui.rl.evaluation import evaluate
    from rlgpt_tui.skills.validation import validate

    store = SessionStore(tmp_path / "lib")
    water = 'def act(ctx):\n    yield from ctx.collect("water", max_steps=60)\n    return True\n'
    plant = "def act(ctx):\n    yield Action.NOOP\n    return False\n"
    record_session(store, "llm:qwen", COLLECT_WOOD, task="collect_wood", skill="collect_wood")
    record_session(store, "llm:qwen", water, rate=0.75, task="collect_drink", skill="go_to_water")
    # collect_wood also served collect_drink, beside go_to_water, at a higher rate
    record_session(
        store, "llm:qwen", COLLECT_WOOD, rate=1.0, task="collect_drink", skill="collect_wood"
    )
    record_session(store, "llm:qwen", plant, rate=0.0, task="eat_plant", skill="eat_plant")
    folder = tmp_path / "shared"
    done = cli("export", str(folder), "--plan", "crafter_score", sessions=tmp_path / "lib")
    assert done.returncode == 0, done.stderr
    assert "wrote plan-craftax-v1.py: collect_wood, collect_drink by go_to_water\n" in done.stdout
    plan = folder_shelf(folder, "craftax").find(COMPOSED_PLAN)
    assert plan is not None and "eat_plant" not in plan.source
    assert "go_to_water v1" in plan.docstring and "llm:qwen" in plan.docstring
    assert str(tmp_path) not in (folder / "plan-craftax-v1.py").read_text()  # no local paths
    composed = validate(COMPOSED_PLAN, plan.source)
    config = RLConfig(
        task="collect_drink", coded_actions=[CodedActionSpec.of(composed)], num_envs=4
    )
    result = evaluate(config, only_coded=COMPOSED_PLAN, episodes=4, seed=3).as_dict()
    begun = result["coded_calls"][COMPOSED_PLAN]["begun"]
    assert begun.get("collect_drink", 0) >= 1, begun
    assert result["success_rate"] > 0, result  # it drank: go_to_water's code ran as the step

    # bad input: one line naming the fix, no folder written
    wrong = cli(
        "export", str(tmp_path / "none"), "--plan", "crafter_scor", sessions=tmp_path / "lib"
    )
    assert wrong.returncode == 2 and "rlgpt-tui tasks" in wrong.stderr
    assert len(wrong.stderr.strip().splitlines()) == 1 and not (tmp_path / "none").exists()
    empty = cli("export", str(tmp_path / "e"), "--plan", "collect_iron", sessions=tmp_path / "new")
    assert empty.returncode == 2 and "no skills; run sessions first" in empty.stderr
    assert not (tmp_path / "e").exists()


def test_the_exported_plan_is_the_one_table2_runs_not_an_older_plan(tmp_path: Path) -> None:
    """A learn record's library held `plan` v1, a 1.5B model's plan for eat_cow that ate once
    in 8 episodes: `table2.py --script plan` reused it (proven above the unmeasured composed
    v2) and scored 1.3 on crafter_score. The export with --plan leaves earlier plans out."""
    from rlgpt_bench.skills import FolderSkills

    store = SessionStore(tmp_path / "lib")
    # older sessions recorded a llama.cpp model by its GGUF file's path on this machine
    path = "llm:/home/me/models/qwen.gguf"
    record_session(store, path, COLLECT_WOOD, rate=1.0, task="collect_wood", skill="collect_wood")
    old_plan = "def act(ctx):\n    yield Action.NOOP  # the eat_cow plan\n    return False\n"
    record_session(store, "llm:qwen", old_plan, rate=0.125, task="eat_cow", skill="plan")
    folder = tmp_path / "shared"
    done = cli("export", str(folder), "--plan", "crafter_score", sessions=tmp_path / "lib")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in folder.glob("plan-*.py")) == ["plan-craftax-v2.py"]
    skills = FolderSkills(folder, "plan")
    assert skills.versions["plan"] == 2 and "the eat_cow plan" not in skills.sources["plan"]
    assert "collect_wood_act" in skills.sources["plan"]
    # shared files name the model, not a path on the machine that ran it
    assert skills.authors["plan"] == "llm:qwen" and skills.authors["collect_wood"] == "llm:qwen"
    assert not any("/home/me" in f.read_text() for f in folder.glob("*.py"))
    # without --plan, every version is shared
    everything = cli("export", str(tmp_path / "all"), sessions=tmp_path / "lib")
    assert everything.returncode == 0 and (tmp_path / "all" / "plan-craftax-v1.py").exists()


def test_a_plan_runs_the_librarys_survive_skill_when_survival_is_due(tmp_path: Path) -> None:
    """A library that holds a skill for the world's `survive` helper gets it in an exported
    plan, run before a step only when the survival guard holds (a vital low, a zombie or
    skeleton adjacent): run before every step, a 1.5B model's own survive cost its plan a
    third of its score. Run in the world, survive ran before a step exactly when the guard
    held there (its calls, as the library counts them, are the calls where it held), and
    never with --steps-only."""
    from rlgpt_tui.library.compose import COMPOSED_PLAN
    from rlgpt_tui.library.shelf import folder_shelf
    from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
    from rlgpt_tui.rl.evaluation import evaluate
    from rlgpt_tui.skills.guard import SURVIVAL_GUARD
    from rlgpt_tui.skills.validation import validate

    survive = (  # counts its calls in the episode's memory, and leaves the world as it is
        "def act(ctx):\n"
        "    ctx.memory['kept'] = ctx.memory.get('kept', 0) + 1\n"
        "    if ctx.view.health < 0:\n"
        "        yield Action.NOOP\n"
    )
    wood = (  # says whether the guard holds, and how many survive calls came just before
        "def act(ctx):\n"
        f"    due = {SURVIVAL_GUARD.condition()}\n"
        "    kept = ctx.memory.get('kept', 0)\n"
        "    ctx.log(f\"due {due} survive ran {kept - ctx.memory.get('seen', 0)}\")\n"
        "    ctx.memory['seen'] = kept\n"
        "    yield from ctx.collect('tree')\n"
    )
    store = SessionStore(tmp_path / "lib")
    record_session(store, "llm:qwen", wood, task="collect_wood", skill="collect_wood")
    folder = tmp_path / "shared"
    alone = cli(
        "export", str(folder / "alone"), "--plan", "crafter_score", sessions=tmp_path / "lib"
    )
    record_session(store, "person", survive, by="human", task="survive_night", skill="survive")
    kept = cli("export", str(folder / "kept"), "--plan", "crafter_score", sessions=tmp_path / "lib")
    assert alone.returncode == kept.returncode == 0, kept.stderr

    def run(name: str) -> tuple[dict[str, int], dict[str, int]]:
        plan = folder_shelf(folder / name, "craftax").find(COMPOSED_PLAN)
        assert plan is not None
        action = validate(COMPOSED_PLAN, plan.source)
        config = RLConfig(task="place_table", coded_actions=[CodedActionSpec.of(action)])
        result = evaluate(config, only_coded=COMPOSED_PLAN, episodes=4, seed=5)
        begun = result.calls[COMPOSED_PLAN]["begun"]
        assert begun["collect_wood"] >= 4
        return result.notes[COMPOSED_PLAN], begun

    notes, begun = run("alone")
    assert set(notes) <= {"due False survive ran 0", "due True survive ran 0"}
    assert "survive" not in begun
    notes, begun = run("kept")
    # survive ran before the step exactly when the guard held; the guard held in some calls
    assert set(notes) == {"due False survive ran 0", "due True survive ran 1"}, notes
    assert begun["survive"] == notes["due True survive ran 1"]
    plan = folder_shelf(folder / "kept", "craftax").find(COMPOSED_PLAN)
    assert plan is not None
    assert "survive v1 when survival is due" in plan.docstring and "person" in plan.docstring
    # the levels are readable in the plan's code
    assert SURVIVAL_GUARD.source() in plan.source and "if survival_due(ctx):" in plan.source
    # a model's own survive cost its plan 5 points: --steps-only composes the steps alone
    steps_only = cli(
        "export",
        str(folder / "steps"),
        "--plan",
        "crafter_score",
        "--steps-only",
        sessions=tmp_path / "lib",
    )
    assert steps_only.returncode == 0, steps_only.stderr
    notes, begun = run("steps")
    assert "due True survive ran 0" in notes and "survive" not in begun
    plan = folder_shelf(folder / "steps", "craftax").find(COMPOSED_PLAN)
    assert plan is not None
    assert "survive" not in plan.docstring and "survival_due" not in plan.source
    # survive_night's one step is survive itself: the plan runs it once a round, not twice
    night = cli(
        "export", str(folder / "night"), "--plan", "survive_night", sessions=tmp_path / "lib"
    )
    assert night.returncode == 0, night.stderr
    plan = folder_shelf(folder / "night", "craftax").find(COMPOSED_PLAN)
    assert plan is not None
    assert plan.source.count("yield from survive_act(ctx)") == 1
    assert "survival is due" not in plan.docstring


def test_a_record_with_calls_but_no_steps_says_the_steps_were_not_recorded() -> None:
    """A step of a composed plan (code alone of several steps) has its calls recorded but
    not their steps; `skills show` said "calls: 83 (0 steps)" for a make_stone_sword whose
    task measured 0.90."""
    from rlgpt_tui.library.record import SkillRecord

    composed = SkillRecord.from_dict({"calls": 83, "steps": 0, "end_reasons": {}})
    assert composed.calls_text == "83 (steps not recorded)"
    trained = SkillRecord.from_dict({"calls": 1200, "steps": 34000, "end_reasons": {"done": 3}})
    assert trained.calls_text == "1,200 (34,000 steps)"
    assert SkillRecord().calls_text == "0 (0 steps)"


def test_the_library_adds_a_version_with_its_author_and_record(tmp_path: Path) -> None:
    """``SkillLibrary.add``: a new source for a name is its next version, with the author
    and record it came with; the same source again is the version held; code that does not
    validate is refused with the fix, and nothing is added."""
    library = SkillLibrary(SessionStore(tmp_path))
    measured = {"best": 0.9, "evaluations": 1, "episodes": 20, "successes": 18}
    record = {"calls": 7, "tasks": {"go_to_tree": measured}}
    first = library.add(SkillFile("go_to_tree", "craftax", GO_TO_TREE, author="me", record=record))
    edited = GO_TO_TREE + "\n# walks further\n"
    second = library.add(SkillFile("go_to_tree", "craftax", edited, version=1, author="llm:q"))
    assert (first.version, first.author, first.record.calls) == (1, "me", 7)
    assert (second.version, second.author, second.record.calls) == (2, "llm:q", 0)
    assert library.add(SkillFile("go_to_tree", "craftax", GO_TO_TREE)).id == first.id
    assert library.best("craftax")["go_to_tree"].id == first.id  # proven beats unmeasured
    with pytest.raises(LibraryError, match="skill go_to_tree:"):
        library.add(SkillFile("go_to_tree", "craftax", "import os\ndef act(ctx):\n    yield 0\n"))
    assert [s.version for s in library.skills()] == [1, 2]
