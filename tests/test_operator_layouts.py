"""Operator rough edge (issue 18): each layout upload writes "Could not find script: data:..." error lines into the
Slurk server log. Why they are harmless, shown on a real Slurk (opt-in: marker `conformance`): Slurk's compiler
(slurk/models/layout.py `_parse_content`) first reads every script source with urllib, which decodes our data: URL,
and only then also tries a stock plugin file `views/static/plugins/<source>.js`; that second lookup fails for every
source that is not a stock plugin name and logs the line, after the content was already taken. So the stored
layout script holds every embedded source in full, in order, and the page gets all of it.

With SLURK_TEST_SERVER_LOG=<the server's log file>, the test also checks that the upload logs exactly one such line
per data: source and nothing else at ERROR level.
"""
from __future__ import annotations

import os
import time

import pytest

from bots.layouts import build_layout, fetch_script
from tasks import get_task
from tests.conftest import REAL_ETAG_ENV, REAL_TOKEN_ENV, REAL_URL_ENV, SlurkServer, _env_flag, _real_configured

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.skipif(not _real_configured(), reason=f"real Slurk not configured: set {REAL_URL_ENV} and "
                                                      f"{REAL_TOKEN_ENV} ({REAL_ETAG_ENV}=1 if it has ETags)"),
]


def sources(body: dict) -> list[str]:
    return [s for v in body["scripts"].values() for s in ([v] if isinstance(v, str) else v)]


@pytest.mark.parametrize("task", ["travel", "gnomes"])
def test_every_embedded_source_is_in_the_stored_script_despite_the_log_lines(task):
    srv = SlurkServer(os.environ[REAL_URL_ENV], os.environ[REAL_TOKEN_ENV], etag=_env_flag(REAL_ETAG_ENV),
                      is_real=True)
    body = build_layout(get_task(task))
    data = [s for s in sources(body) if s.startswith("data:")]
    assert data, "no embedded plugin"
    log_path = os.environ.get("SLURK_TEST_SERVER_LOG")
    before = os.path.getsize(log_path) if log_path and os.path.exists(log_path) else None
    layout_id = srv.create_layout(body)
    stored = srv.expect_ok(srv.api("GET", f"layouts/{layout_id}"))["script"]
    for trigger, srcs in body["scripts"].items():   # each decoded source, in order within its trigger
        at = 0
        for s in [x for x in ([srcs] if isinstance(srcs, str) else srcs) if x.startswith("data:")]:
            code = fetch_script(s)
            found = stored.find(code.rstrip("\n"), at)
            assert found >= 0, f"{trigger}: source not in the stored script: {code[:80]!r}"
            at = found + len(code.rstrip("\n"))
    if before is not None:
        time.sleep(1.0)                              # the server's log handler writes after the response
        with open(log_path, encoding="utf-8", errors="replace") as fh:
            fh.seek(before)
            errors = [line for line in fh if " ERROR " in line or "ERROR in" in line]
        missing = [e for e in errors if "Could not find script: data:" in e]
        assert len(missing) == len(data), (len(missing), len(data))
        assert len(errors) == len(missing), [e[:120] for e in errors if e not in missing]
