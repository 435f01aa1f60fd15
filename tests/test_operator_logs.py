"""Operator rough edge (issue 18): `logs download --task travel` after `setup travel --study pilot1` (which names the
Slurk task after the study). `--task` takes the task id, the study name and the task kind; the command that `setup`
prints at the end works as printed; two studies of one kind are an error naming both, never a guess."""
from __future__ import annotations

import shlex
import uuid

from bots.study import logs as study_logs
from bots.study import setup as study_setup


def env_of(srv) -> dict:
    return {"SLURK_URL": srv.url, "SLURK_ADMIN_TOKEN": srv.admin_token}


def setup_study(srv, studies, study) -> tuple[int, str]:
    out: list[str] = []
    rc = study_setup.main(["travel", "--participants", "2", "--study", study, "--out", str(studies)],
                          env=env_of(srv), echo=out.append)
    assert rc == 0, "\n".join(out)
    return int(srv.api("GET", "tasks", params={"name": study}).json()[0]["id"]), "\n".join(out)


def download(srv, studies, out, *task, env_extra=None) -> tuple[int, str]:
    lines: list[str] = []
    argv = ["download", *task, "--studies", str(studies), "--out", str(out)]
    rc = study_logs.main(argv, env={**env_of(srv), **(env_extra or {})}, echo=lines.append)
    return rc, "\n".join(lines)


def test_task_id_study_name_and_task_kind_name_the_same_task(slurk_server, tmp_path):
    srv = slurk_server
    studies = tmp_path / "studies"
    study = f"pilot{uuid.uuid4().hex[:6]}"
    task_id, printed = setup_study(srv, studies, study)
    kind_is_a_slurk_name = bool(srv.api("GET", "tasks", params={"name": "travel"}).json())
    names = [str(task_id), study] + ([] if kind_is_a_slurk_name else ["travel"])
    for i, name in enumerate(names):
        rc, output = download(srv, studies, tmp_path / f"logs{i}", "--task", name)
        assert rc == 0, f"--task {name}: {output}"
        assert output.startswith(f"Task {task_id} ({study!r}"), output
    # without --task: TASK_ID from a sourced bot.env
    rc, output = download(srv, studies, tmp_path / "logs-env", env_extra={"TASK_ID": str(task_id)})
    assert rc == 0 and output.startswith(f"Task {task_id} "), output

    # the command setup printed runs as printed (with the folder the test used)
    hint = next(line for line in printed.splitlines() if "logs download" in line)
    argv = shlex.split(hint.split("#")[0].split("./run_bot.sh logs", 1)[1])
    assert argv[:3] == ["download", "--task", study], hint
    rc = study_logs.main(argv[:3] + ["--studies", str(studies), "--out", str(tmp_path / "printed")],
                         env=env_of(srv), echo=lambda s: None)
    assert rc == 0
    assert f"slurk-logs/{study}" in hint and f"replay-out/{study}" in printed
    assert "in the same browser" in printed      # how a person who closed the tab comes back


def test_two_studies_of_one_kind_are_named_not_guessed(slurk_server, tmp_path):
    srv = slurk_server
    if srv.api("GET", "tasks", params={"name": "travel"}).json():
        import pytest
        pytest.skip("this server has a Slurk task named 'travel', which --task travel names exactly")
    studies = tmp_path / "studies"
    a, b = f"a{uuid.uuid4().hex[:6]}", f"b{uuid.uuid4().hex[:6]}"
    ta, _ = setup_study(srv, studies, a)
    tb, _ = setup_study(srv, studies, b)
    rc, output = download(srv, studies, tmp_path / "logs", "--task", "travel")
    assert rc == 2
    assert f"{a} (task {ta})" in output and f"{b} (task {tb})" in output and "study name" in output
    rc, output = download(srv, studies, tmp_path / "logs", "--task", "nosuchstudy")
    assert rc == 2 and "TASK_ID" in output, output
    rc, output = download(srv, studies, tmp_path / "logs")
    assert rc == 2 and "--task" in output, output
