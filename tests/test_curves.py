"""The report's learning curves, drawn with matplotlib: PNG and SVG, one sample axis across
iterations, evaluations with their 95% intervals. (An exported session's curves.png and
curves.svg: tests/test_store.py, test_session_records_tables_and_exports.)"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from PIL import Image

from rlgpt_tui.curves import EVALUATION_COLOUR, draw_learning_curves, save_curves

ITERATIONS = [
    {"iteration": 0, "total_samples": 16_384},
    {"iteration": 1, "total_samples": 32_780},
]


def svg_texts(path: Path) -> list[str]:
    """Every text the SVG shows (its fonts kept as text, not paths)."""
    root = ET.parse(path).getroot()
    return ["".join(e.itertext()).strip() for e in root.iter("{http://www.w3.org/2000/svg}text")]


def test_runs_share_one_sample_axis_and_evaluations_carry_their_interval(tmp_path) -> None:
    rows = [
        {"iteration": i, "subaction": "collect_wood", "samples": s, "value": 0.25 + 0.25 * i}
        for i in (0, 1)
        for s in (1024, 16_384)
    ]
    evaluations = [
        {"iteration": 1, "result": json.dumps({"value": 0.75, "ci95": [0.5, 0.9],
                                               "training_samples": 16_396})},
        {"iteration": 1, "result": json.dumps({"value": 0.4, "ci95": [0.2, 0.6]})},
    ]  # fmt: skip
    figure = draw_learning_curves(rows, evaluations, ITERATIONS, target=0.9)
    axes = figure.axes[0]
    runs = {line.get_label(): line.get_xdata() for line in axes.get_lines()}
    # iteration 2's run continues to the right of iteration 1's (one axis across iterations)
    assert list(runs["training it1 collect_wood"]) == [1024, 16_384]
    assert list(runs["training it2 collect_wood"]) == [16_384 + 1024, 32_768]
    # the trained policy's evaluation at the samples it was trained on, its interval a bar
    # from 0.5 to 0.9; the code alone's (no training) at its iteration's start
    trained, coded = axes.containers
    assert trained.get_label() == "evaluation (95% CI)" and coded.get_label().startswith("code")
    point, _, (bars,) = trained.lines
    assert list(point.get_xdata()) == [32_780] and list(point.get_ydata()) == [0.75]
    assert point.get_color() == EVALUATION_COLOUR
    assert [list(y) for y in bars.get_segments()[0]] == [[32_780, 0.5], [32_780, 0.9]]
    assert list(coded.lines[0].get_xdata()) == [16_384]
    assert axes.get_xlabel() == "samples (all iterations)" and axes.get_ylabel() == "success rate"
    assert axes.get_ylim()[1] > 1.0  # a rate's whole range

    png, svg = save_curves(figure, tmp_path)
    with Image.open(png) as image:
        image.verify()
    with Image.open(png) as image:
        assert image.format == "PNG" and image.size == (900, 360)
    texts = svg_texts(svg)
    for label in ("samples (all iterations)", "success rate", "evaluation (95% CI)",
                  "training it2 collect_wood", "target 0.90", "30k", "it2"):  # fmt: skip
        assert label in texts, label


def test_a_scored_task_is_drawn_on_its_score(tmp_path) -> None:
    rows = [{"iteration": 0, "subaction": "crafter_score", "samples": s, "value": v}
            for s, v in ((2048, 3.0), (4096, 7.5))]  # fmt: skip
    result = {"value": 9.0, "ci95": [6.5, 11.0], "training_samples": 4096}
    evaluations = [{"iteration": 0, "measure": "crafter_score", "result": result}]
    figure = draw_learning_curves(rows, evaluations, [{"iteration": 0, "total_samples": 4096}])
    axes = figure.axes[0]
    assert axes.get_ylabel() == "Crafter score" and axes.get_ylim()[0] == 0
    assert axes.get_ylim()[1] >= 11.0
    _, svg = save_curves(figure, tmp_path, "score")
    assert "Crafter score" in svg_texts(svg) and (tmp_path / "score.png").stat().st_size > 5000


def test_nothing_trained_draws_nothing() -> None:
    assert draw_learning_curves([], [], []) is None
