"""Result tables as Markdown for the documentation: every bench writes its table to docs/figures/<name>.md (beside
what it prints and stores), and the docs pages include those files (pymdownx.snippets), so a figure in the docs is
what a run wrote, never typed by hand. A file says which command wrote it, when, and on what machine."""
from __future__ import annotations

import datetime
import json
import os
import platform
import shlex
import sys
from pathlib import Path
from typing import Iterable, Optional, Sequence

FIGURES = Path(__file__).resolve().parent.parent / "docs" / "figures"


def cell(value) -> str:
    """One table cell: a pipe or a line break inside it would break the Markdown table."""
    return "–" if value is None else str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(header: Sequence, rows: Iterable[Sequence]) -> str:
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def machine() -> str:
    load = f", load {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    return f"{os.cpu_count()} CPUs{load}, Python {platform.python_version()}"


def command_line(argv: Optional[Sequence[str]] = None, module: str = "") -> str:
    """The command that reproduces this run: `python -m <module> <args>`."""
    args = list(sys.argv[1:] if argv is None else argv)
    return " ".join(["python -m", module] + [shlex.quote(a) for a in args])


def write_figure(name: str, tables: Sequence[str], command: str, notes: Sequence[str] = (),
                 out_dir: Optional[Path] = None) -> Path:
    """Write docs/figures/<name>.md: the tables (Markdown, see markdown_table), then a caption with the command, the
    date and the machine, then the notes (the bench's verdicts, e.g. a target met or not)."""
    out_dir = FIGURES if out_dir is None else Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    date = datetime.date.today().isoformat()
    parts = [f"<!-- written by `{command}`; re-run it to update this file, do not edit it by hand -->"]
    parts += list(tables)
    parts.append(f"*Written by `{command}` on {date} ({machine()}).*")
    parts += [n for n in notes if n]
    path = out_dir / f"{name}.md"
    path.write_text("\n\n".join(parts) + "\n", encoding="utf-8")
    print(f"figure: {path}")
    return path


def write_figure_row(name: str, header: Sequence, key: str, row: Sequence, command: str, note: str = "",
                     out_dir: Optional[Path] = None) -> Path:
    """For a table whose rows come from separate runs (e.g. one per server, or before/after): the row of this run
    replaces the row with the same key in docs/figures/<name>.json, and docs/figures/<name>.md is drawn again from all
    of them, each row's command, date and machine listed under the table."""
    out_dir = FIGURES if out_dir is None else Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    store = out_dir / f"{name}.json"
    data = json.loads(store.read_text(encoding="utf-8")) if store.exists() else {}
    rows = data.get("rows", {}) if list(data.get("header", [])) == [str(h) for h in header] else {}
    rows[key] = {"row": [cell(v) for v in row], "command": command, "date": datetime.date.today().isoformat(),
                 "machine": machine(), "note": note}
    store.write_text(json.dumps({"header": [str(h) for h in header], "rows": rows}, indent=1, ensure_ascii=False)
                     + "\n", encoding="utf-8")
    runs = [f"- {k}: `{r['command']}` on {r['date']} ({r['machine']}){'; ' + r['note'] if r['note'] else ''}"
            for k, r in rows.items()]
    parts = [f"<!-- drawn from {store.name}, one row per run of the bench; re-run it to update, do not edit by hand -->",
             markdown_table(header, [r["row"] for r in rows.values()]), "Runs:\n\n" + "\n".join(runs)]
    path = out_dir / f"{name}.md"
    path.write_text("\n\n".join(parts) + "\n", encoding="utf-8")
    print(f"figure: {path}")
    return path
