"""The documentation: the site builds strictly, and the README stays a short guide."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
OPENING_COMMANDS = [
    "bash scripts/setup.sh && .venv/bin/rlgpt-tui run --task collect_wood",
    "bash scripts/setup.sh && .venv/bin/python -m pytest -q -n 2 --dist loadfile --durations=15",
]
RESULTS_BEGIN, RESULTS_END = "<!-- results:begin -->", "<!-- results:end -->"


def build_site(config: Path, site: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config)]
    environment = os.environ | {"NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [*command, "-d", str(site)], capture_output=True, text=True, cwd=ROOT, env=environment
    )


def test_the_site_builds_strictly_with_every_page_in_its_nav(tmp_path: Path) -> None:
    done = build_site(ROOT / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    pages = sorted(p.relative_to(ROOT / "docs") for p in (ROOT / "docs").rglob("*.md"))
    for page in pages:
        assert (tmp_path / "site" / page.with_suffix(".html")).is_file(), page


def test_a_broken_link_or_a_page_left_out_of_the_nav_fails_the_build(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\n[gone](missing.md) and [bad anchor](index.md#nope)\n")
    (docs / "orphan.md").write_text("# Not in the nav\n")
    config = (ROOT / "mkdocs.yml").read_text()
    config = re.sub(r"(?ms)^nav:.*?(?=^\S)", "nav:\n  - Home: index.md\n\n", config)
    config = config.replace("docs_dir: docs", f"docs_dir: {docs}")
    (tmp_path / "mkdocs.yml").write_text(config)
    done = build_site(tmp_path / "mkdocs.yml", tmp_path / "site")
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "missing.md" in output and "#nope" in output and "orphan.md" in output, output


def code_blocks(text: str) -> list[str]:
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S)]


def test_the_readme_opens_with_its_two_commands_and_stays_short() -> None:
    text = README.read_text()
    lines = text.splitlines()
    assert len(lines) < 300, f"README.md has {len(lines)} lines: move detail into docs/"
    assert code_blocks(text)[:2] == OPENING_COMMANDS
    before_first_block = text[: text.index("```bash")]
    assert before_first_block.strip() == "# rlgpt-tui"


def without_results(text: str) -> str:
    """The text less the rendered results block (its rows carry commits and dates by design)."""
    begin, end = text.find(RESULTS_BEGIN), text.find(RESULTS_END)
    return text[:begin] + text[end:] if 0 <= begin < end else text


def test_the_readme_links_to_files_that_exist_and_holds_no_lab_notebook() -> None:
    text = without_results(README.read_text())
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    local = [t for t in targets if not t.startswith(("http://", "https://"))]
    assert local, "the README links to its docs"
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, f"README.md links to missing files: {missing}"
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text), "no dated entries in the README"
    hashes = [w for w in re.findall(r"\b[0-9a-f]{7,40}\b", text) if re.search(r"[a-f]", w)]
    assert not [w for w in hashes if re.search(r"\d", w)], f"commit hashes: {hashes}"
    assert "2-core machine" not in text


def test_the_readme_holds_one_rendered_results_block_and_the_page_is_generated() -> None:
    text = README.read_text()
    assert text.count(RESULTS_BEGIN) == 1 and text.count(RESULTS_END) == 1
    block = text[text.index(RESULTS_BEGIN) : text.index(RESULTS_END)]
    assert "| task |" in block  # a rendered table, not the placeholder
    page = (ROOT / "docs" / "results.md").read_text()
    assert "python benchmarks/render.py" in page.splitlines()[2]
