"""benchmarks/script_edits.py: every edit still applies to the tech-tree script, and the
edited script passes the validation any coded action gets (its dry run on recorded Views)."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from rlgpt_tui.library.templates import template_code
from rlgpt_tui.skills.validation import validate

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "script_edits.py"


@pytest.fixture(scope="module")
def bench() -> dict:
    return runpy.run_path(str(SCRIPT))


def test_every_edit_applies_and_validates(bench: dict) -> None:
    source = template_code("collect_diamond")
    for name in bench["EDITS"]:
        assert bench["edited"](source, name) != source, name
    edited = bench["edited"](source, "+".join(bench["EDITS"]))  # all of them, in turn
    assert "yield from flee(ctx)" in edited and "yield from make_iron_sword(ctx)" in edited
    assert validate("collect_diamond", edited).name == "collect_diamond"  # dry run included


def test_unknown_or_stale_edit_is_named(bench: dict) -> None:
    with pytest.raises(ValueError, match="no edit 'sprint'"):
        bench["edited"](template_code("make_iron_pickaxe"), "flee+sprint")
    with pytest.raises(ValueError, match="'iron_sword' no longer applies"):
        bench["edited"]("def act(ctx):\n    yield 0\n", "iron_sword")
