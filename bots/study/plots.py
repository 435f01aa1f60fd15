"""PNG plots of replayed games: statuses, metric distributions, and agent pairs side by side.

Uses matplotlib's Agg canvas directly (no pyplot, no display, no global figure state).
"""
from __future__ import annotations

import math
import os
from typing import Optional

import matplotlib

matplotlib.use("Agg")
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from .provision import make_private_dir, private_file  # noqa: E402
from .replay_model import GameReplay, agent_groups  # noqa: E402

COLORS = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac", "#eeca3b"]


def _num(v) -> Optional[float]:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)) and not math.isnan(float(v)):
        return float(v)
    return None


def _ratio(score, optimum) -> Optional[float]:
    a, b = _num(score), _num(optimum)
    return a / b if a is not None and b else None


def metric_values(games: list[GameReplay]) -> dict[str, list[Optional[float]]]:
    """Numeric metrics per game: the task's per_game_columns (booleans as 0/1), its optimality ratio, turns, duration."""
    names: list[str] = []
    for g in games:
        for c in g.columns:
            if c not in names and c != "status":
                names.append(c)
    out: dict[str, list[Optional[float]]] = {}
    for c in names:
        vals = [_num(g.results.get(c)) for g in games]
        if any(v is not None for v in vals):
            out[c] = vals
    # Optimality: the task's own ratio when its results carry one, else score / optimum when both are there.
    if not any(k in out for k in ("ratio", "score/optimum")):
        ratio = [_num(g.results.get("ratio")) for g in games]
        if any(v is not None for v in ratio):
            out["ratio"] = ratio
        else:
            ratio = [_ratio(g.results.get("score"), g.results.get("optimum")) for g in games]
            if any(v is not None for v in ratio):
                out["score/optimum"] = ratio
    out["turns"] = [_num(g.turns) for g in games]
    out["duration (s)"] = [_num(g.duration) for g in games]
    if all(v is None for v in out["duration (s)"]):
        del out["duration (s)"]
    return out


def _save(fig: Figure, path: str, title: str = "") -> str:
    FigureCanvasAgg(fig)
    if title:
        fig.suptitle(title, fontweight="bold")
        fig.tight_layout(rect=(0, 0, 1, 0.96))
    else:
        fig.tight_layout()
    with private_file(path, "wb") as fh:  # mode 0600 like the other replay outputs
        fig.savefig(fh, dpi=100, format="png")
    return path


def _grid(n: int) -> tuple[int, int]:
    cols = min(3, max(1, n))
    return math.ceil(n / cols), cols


def plot_status(games: list[GameReplay], path: str) -> str:
    """Games per status, stacked by task."""
    statuses = sorted({g.status for g in games})
    tasks = sorted({g.task for g in games})
    fig = Figure(figsize=(max(4, 1.2 * len(statuses) + 2), 3.5))
    ax = fig.add_subplot(1, 1, 1)
    bottom = [0] * len(statuses)
    for i, task in enumerate(tasks):
        counts = [sum(g.status == s and g.task == task for g in games) for s in statuses]
        ax.bar(statuses, counts, bottom=bottom, color=COLORS[i % len(COLORS)], label=task)
        bottom = [a + b for a, b in zip(bottom, counts)]
    if len(tasks) > 1:
        ax.legend(fontsize=8)
    ax.set_title(f"Game status ({len(games)} games)")
    ax.set_ylabel("games")
    return _save(fig, path)


def _value_label(v: float, name: str, games: list[GameReplay]) -> str:
    if name in {c for g in games for c in g.columns} and any(isinstance(g.results.get(name), bool) for g in games):
        return "yes" if v else "no"
    return str(int(v))


def plot_metrics(games: list[GameReplay], path: str, title: str = "") -> str:
    metrics = metric_values(games)
    rows, cols = _grid(len(metrics))
    fig = Figure(figsize=(4.2 * cols, 3.2 * rows))
    for k, (name, vals) in enumerate(metrics.items(), 1):
        ax = fig.add_subplot(rows, cols, k)
        xs = [v for v in vals if v is not None]
        color = COLORS[(k - 1) % len(COLORS)]
        distinct = sorted(set(xs))
        if xs and len(distinct) <= 12 and all(float(v).is_integer() for v in distinct):
            # few whole values (booleans, turn counts): one bar per value
            labels = [_value_label(v, name, games) for v in distinct]
            ax.bar(range(len(distinct)), [xs.count(v) for v in distinct], color=color)
            ax.set_xticks(range(len(distinct)))
            ax.set_xticklabels(labels)
        elif xs:
            ax.hist(xs, bins=min(20, max(2, len(distinct))), color=color, edgecolor="white")
        ax.set_title(f"{name} (n={len(xs)})")
        ax.set_ylabel("games")
    return _save(fig, path, title)


def plot_by_agents(games: list[GameReplay], path: str, title: str = "") -> str:
    """One panel per metric, one bar per agent pair (mean, with the standard deviation), plus the completion rate."""
    groups = agent_groups(games)
    labels = list(groups)
    panels: dict[str, list[tuple[Optional[float], float, int]]] = {}
    panels["completed (share)"] = [
        (sum(g.status == "completed" for g in gs) / len(gs), 0.0, len(gs)) for gs in groups.values()]
    for name in metric_values(games):
        stats = []
        for gs in groups.values():
            xs = [v for v in metric_values(gs).get(name, []) if v is not None]
            if xs:
                mean = sum(xs) / len(xs)
                sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))
                stats.append((mean, sd, len(xs)))
            else:
                stats.append((None, 0.0, 0))
        panels[name] = stats
    rows, cols = _grid(len(panels))
    fig = Figure(figsize=(max(4.5, 0.9 * len(labels) + 2.5) * cols, 3.4 * rows))
    colors = [COLORS[i % len(COLORS)] for i in range(len(labels))]
    for k, (name, stats) in enumerate(panels.items(), 1):
        ax = fig.add_subplot(rows, cols, k)
        xs = list(range(len(labels)))
        ax.bar(xs, [m if m is not None else 0 for m, _, _ in stats], yerr=[sd for _, sd, _ in stats],
               color=colors, capsize=3)
        ax.set_xticks(xs)
        ax.set_xticklabels(labels, rotation=20, ha="right", fontsize=8)
        ax.set_title(name)
    return _save(fig, path, (title + ": " if title else "") + "by agent pair (mean \u00b1 sd)")


def plot_status_by_agents(games: list[GameReplay], path: str, title: str = "") -> str:
    """Grouped bars: x = status, one bar per agent pair."""
    groups = agent_groups(games)
    statuses = sorted({g.status for g in games})
    fig = Figure(figsize=(max(5, 1.6 * len(statuses) + 3), 3.8))
    ax = fig.add_subplot(1, 1, 1)
    width = 0.8 / max(1, len(groups))
    for i, (label, gs) in enumerate(groups.items()):
        counts = [sum(g.status == s for g in gs) for s in statuses]
        ax.bar([x + i * width - 0.4 + width / 2 for x in range(len(statuses))], counts, width,
               label=label, color=COLORS[i % len(COLORS)])
    ax.set_xticks(range(len(statuses)))
    ax.set_xticklabels(statuses)
    ax.set_ylabel("games")
    ax.set_title((title + ": " if title else "") + "game status by agent pair")
    ax.legend(fontsize=8)
    return _save(fig, path)


def write_plots(games: list[GameReplay], out_dir: str) -> list[str]:
    """status.png across all games; per task (file names prefixed with "<task>-" when there are several tasks):
    metrics.png, and with several agent pairs by_agents.png and status_by_agents.png."""
    make_private_dir(out_dir)
    paths = [plot_status(games, os.path.join(out_dir, "status.png"))]
    tasks: dict[str, list[GameReplay]] = {}
    for g in games:
        tasks.setdefault(g.task, []).append(g)
    for task, gs in tasks.items():
        prefix = f"{task}-" if len(tasks) > 1 else ""
        paths.append(plot_metrics(gs, os.path.join(out_dir, f"{prefix}metrics.png"), f"{task} ({len(gs)} games)"))
        if len(agent_groups(gs)) > 1:
            paths.append(plot_by_agents(gs, os.path.join(out_dir, f"{prefix}by_agents.png"), task))
            paths.append(plot_status_by_agents(gs, os.path.join(out_dir, f"{prefix}status_by_agents.png"), task))
    return paths
