"""The documentation site builds with `mkdocs build --strict` (no broken link, anchor or included figure), every task
has its page, and the README stays a first visit's page (under 200 lines, linking into the site)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tasks import available_tasks

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def task_page(name: str) -> Path:
    return DOCS / "tasks" / f"{name}.md"


@pytest.fixture(scope="module")
def built_site(tmp_path_factory):
    pytest.importorskip("mkdocs", reason="mkdocs is not installed: `pip install -e '.[test]'` brings it "
                                         "(the docs build is not checked without it)")
    site = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"mkdocs build --strict failed:\n{run.stdout}\n{run.stderr}"
    return site


def test_site_builds_strict(built_site):
    assert (built_site / "index.html").is_file()
    assert (built_site / "search" / "search_index.json").is_file()


@pytest.mark.parametrize("name", available_tasks())
def test_every_task_has_a_page(name, built_site):
    assert task_page(name).is_file(), f"task {name} has no page docs/tasks/{name}.md"
    nav = (ROOT / "mkdocs.yml").read_text()
    assert f"tasks/{name}.md" in nav, f"docs/tasks/{name}.md is not in mkdocs.yml's nav"
    assert (built_site / "tasks" / name / "index.html").is_file()
    assert f"./run_bot.sh {name}" in task_page(name).read_text(), f"the {name} page shows no command to play it"


def test_readme_is_short_and_links_to_the_docs():
    readme = (ROOT / "README.md").read_text()
    lines = readme.splitlines()
    assert len(lines) < 200, f"README.md has {len(lines)} lines; its content belongs in docs/"
    links = set(re.findall(r"\]\((docs/[^)#\s]+)", readme))
    assert links, "README.md links to no page of docs/"
    for link in links:
        assert (ROOT / link).is_file(), f"README.md links to {link}, which does not exist"
    for name in available_tasks():
        assert f"docs/tasks/{name}.md" in links, f"README.md does not link to the {name} page"
    for command in ("./run_bot.sh travel", "./run_bot.sh test"):
        assert command in readme, f"README.md lost its set-up command {command}"


def test_bench_figures_are_markdown_tables_with_their_command(tmp_path):
    from bench.figures import markdown_table, write_figure, write_figure_row

    table = markdown_table(("case", "value"), [("a|b", 1), ("c", None)])
    assert table.splitlines() == ["| case | value |", "|---|---|", "| a\\|b | 1 |", "| c | – |"]
    path = write_figure("bench_x", [table], "python -m bench.bench_x --n 3", ["a note"], out_dir=tmp_path)
    text = path.read_text()
    assert table in text and "`python -m bench.bench_x --n 3`" in text and "a note" in text

    header = ("server", "p50")
    write_figure_row("bench_y", header, "double", ("double", 1), "python -m bench.bench_y", out_dir=tmp_path)
    write_figure_row("bench_y", header, "real", ("real", 2), "python -m bench.bench_y --real", out_dir=tmp_path)
    write_figure_row("bench_y", header, "double", ("double", 3), "python -m bench.bench_y", out_dir=tmp_path)
    rows = [line for line in (tmp_path / "bench_y.md").read_text().splitlines() if line.startswith("| ")]
    assert rows == ["| server | p50 |", "| double | 3 |", "| real | 2 |"], "a run replaces its own row, keeps others"
