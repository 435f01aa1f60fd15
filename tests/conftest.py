"""Shared fixtures: the Slurk test double and, when configured, a real Slurk server.

Real-server conformance runs are opt-in through the environment:

    SLURK_TEST_URL=http://127.0.0.1:5055 SLURK_TEST_ADMIN_TOKEN=0000...0000 [SLURK_TEST_ETAG=1] pytest ...

Without them the ``real`` parameter of ``slurk_server`` is skipped with a reason. Likewise the real-model tier
(``tests/test_real_model.py``, marker ``realmodel``) runs only with ``LLM_TEST_BASE_URL`` and ``LLM_TEST_MODEL``.
"""

from __future__ import annotations

import os

import pytest

# Agents on Slurk answer at a person's typing pace by default (bots/pacing.py); the tests keep their waits short
# and test the pacing itself with settings of their own.
os.environ["BOT_PACING"] = "off"
os.environ["BOT_INPUT_RATE"] = "1000,1000"  # scripted people act far faster than people; test_input_rate tests the limit
os.environ["BOT_LOG_DELAY"] = "0"  # rows go out at once, so tests can read logs as the game moves (bots/slurk/runtime.py)

from tests.slurk_double import ADMIN_TOKEN, SlurkDouble, SlurkRest
from tests.slurk_double.recorder import SocketRecorder

REAL_URL_ENV = "SLURK_TEST_URL"
REAL_TOKEN_ENV = "SLURK_TEST_ADMIN_TOKEN"
REAL_ETAG_ENV = "SLURK_TEST_ETAG"


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "conformance: runs against a real Slurk server (skipped unless SLURK_TEST_URL and SLURK_TEST_ADMIN_TOKEN are set)",
    )
    config.addinivalue_line(
        "markers",
        "realmodel: plays games against a real LLM endpoint (skipped unless LLM_TEST_BASE_URL and LLM_TEST_MODEL are set)",
    )


class SlurkServer(SlurkRest):
    """What scenario tests talk to: ``url``, ``admin_token``, ``etag``, ``is_real`` plus REST helpers
    (``provision_user``, ``create_room``, ``create_layout``, ``create_task``, ``get_user``, ``logs``, ``api``).
    ``double`` is the :class:`SlurkDouble` behind it, or ``None`` for a real server."""

    def __init__(self, url: str, admin_token: str, etag: bool, is_real: bool, double: SlurkDouble | None = None):
        super().__init__(url, admin_token, etag)
        self.is_real = is_real
        self.double = double

    def __repr__(self) -> str:
        kind = "real" if self.is_real else "double"
        return f"<SlurkServer {kind} {self.url} etag={self.etag}>"


def _real_configured() -> bool:
    return bool(os.environ.get(REAL_URL_ENV) and os.environ.get(REAL_TOKEN_ENV))


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on", "y")


@pytest.fixture
def slurk_double():
    """A started double without ETags."""
    with SlurkDouble(etag=False) as double:
        yield double


@pytest.fixture
def slurk_double_etag():
    """A started double with ETag/If-Match handling on."""
    with SlurkDouble(etag=True) as double:
        yield double


@pytest.fixture(
    params=[
        "double",
        "double-etag",
        pytest.param(
            "real",
            marks=[
                pytest.mark.conformance,
                pytest.mark.skipif(
                    not _real_configured(),
                    reason=f"real Slurk not configured: set {REAL_URL_ENV} and {REAL_TOKEN_ENV} ({REAL_ETAG_ENV}=1 if it has ETags)",
                ),
            ],
        ),
    ]
)
def slurk_server(request):
    """The same scenario against the double (ETags off and on) and, if configured, a real Slurk."""
    if request.param == "real":
        yield SlurkServer(
            os.environ[REAL_URL_ENV],
            os.environ[REAL_TOKEN_ENV],
            etag=_env_flag(REAL_ETAG_ENV),
            is_real=True,
        )
        return
    etag = request.param == "double-etag"
    with SlurkDouble(etag=etag, admin_token=ADMIN_TOKEN) as double:
        yield SlurkServer(double.url, double.admin_token, etag=etag, is_real=False, double=double)


@pytest.fixture
def socket_client():
    """Factory for recording socket.io clients; all are disconnected at teardown.

    ``socket_client(name, joined_room_hook=None) -> SocketRecorder`` (not yet connected).
    """
    made: list[SocketRecorder] = []

    def make(name: str = "client", joined_room_hook=None) -> SocketRecorder:
        recorder = SocketRecorder(name, joined_room_hook=joined_room_hook)
        made.append(recorder)
        return recorder

    yield make
    for recorder in made:
        try:
            recorder.disconnect()
        except Exception:
            pass

# Browser fixtures are registered here, once: imported into several test modules, a session-scoped fixture would
# be instantiated per module and start Playwright twice in one thread.
from tests.browser.harness import browser_page, chromium, contract_server  # noqa: E402,F401
