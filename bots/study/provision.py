"""What the study commands (`setup`, `concierge`, `logs`) share: their configuration, permission sets, links, and
safe writing of files that hold secrets.

Configuration = the bots' YAML file, read by `bots.config.load_config`, which also knows the study settings:

```yaml
slurk:
  url: http://127.0.0.1:5000
  admin_token: ...          # better: SLURK_ADMIN_TOKEN in the environment; used by setup and logs download only
concierge:                  # the waiting-room bot's own credentials (better: CONCIERGE_TOKEN / CONCIERGE_USER)
  token: ...
  user_id: 4
  waiting_timeout: 600      # seconds a person waits before being compensated (also accepted as timers.waiting_timeout)
agent_users: {ghost: 9}     # agent seat -> Slurk user id (AGENT_USERS=ghost:9); also accepted inside `concierge:`
```

Environment (wins over the file): `SLURK_ADMIN_TOKEN`, `CONCIERGE_TOKEN`, `CONCIERGE_USER`, `WAITING_TIMEOUT`,
`AGENT_USERS`. Secrets never appear in a repr, an error, a log line or the output.
"""
from __future__ import annotations

import contextlib
import json
import os
import random
import sys
import tempfile
from dataclasses import dataclass, field
from typing import IO, Iterator, Mapping, Optional
from urllib.parse import quote

from bots.config import DEFAULT_WAITING_TIMEOUT, Config, ConfigError, load_config

# Permission sets (slurk-protocol.md §4). Bots: REST + every kind of message; people: chat and commands only.
BOT_PERMISSIONS = {"api": True, "send_message": True, "send_html_message": True, "send_command": True,
                   "send_privately": True}
# People also need send_privately: the task page (plugins/slurk-task.js) sends every command, typed `/propose ...`
# or a button, and in relay mode every chat line, as a message_command with `receiver_id` = the task bot, so that
# only the bot gets it. Slurk refuses a `receiver_id` without send_privately ("You are not allowed to send
# privately"), and without a receiver it sends the `command` event to everyone in the room: the partner would see
# every move. (The flag also lets a hand-made socket client message the partner privately; that is logged.)
PERSON_PERMISSIONS = {"send_message": True, "send_command": True, "send_privately": True}


def person_permissions(spec, options: Optional[Mapping] = None) -> dict:
    """A participant's permissions for a task and its task options (`TaskSpec.chat_mode`): in a relayed room people
    type through the page, which sends each line privately to the bot as a message_command, so they get no
    `send_message`: no `text` at all, public or private (a public line would skip the rules and be readable from
    every room; a private one could reach the partner, or another room, past the game). They keep `send_command`
    and `send_privately`, which the page's commands to the bot need (a `receiver_id` needs send_privately)."""
    perms = dict(PERSON_PERMISSIONS)
    mode = spec.chat_mode(dict(options or {})) if hasattr(spec, "chat_mode") else getattr(spec, "chat", "open")
    if mode == "relay":
        perms["send_message"] = False
    return perms
AGENT_PERMISSIONS: dict = {}  # agent users only lend their name to the task bot (impersonate needs membership only)

# Human-looking first names (gender-neutral), for agent seats and participants' display names.
NAMES = ("Alex", "Sam", "Robin", "Charlie", "Jamie", "Taylor", "Jordan", "Casey", "Riley", "Morgan", "Avery",
         "Quinn", "Drew", "Jesse", "Kim", "Max", "Noa", "Sasha", "Toni", "Chris", "Pat", "Dani", "Eli", "Frankie",
         "Kai", "Luca", "Mika", "Nico", "Remy", "Sky", "Ari", "Jo")

PROLIFIC_PID = "{{%PROLIFIC_PID%}}"


def _mask(value: Optional[str]) -> Optional[str]:
    return None if value is None else "***"


@dataclass
class StudyConfig:
    config: Config
    admin_token: Optional[str] = field(default=None, repr=False)
    waiting_timeout: float = DEFAULT_WAITING_TIMEOUT
    concierge_token: Optional[str] = field(default=None, repr=False)
    concierge_user: Optional[int] = None
    agent_users: dict = field(default_factory=dict)  # agent seat -> Slurk user id

    def __repr__(self) -> str:
        return (f"StudyConfig(config={self.config!r}, admin_token={_mask(self.admin_token)!r}, "
                f"waiting_timeout={self.waiting_timeout!r}, concierge_token={_mask(self.concierge_token)!r}, "
                f"concierge_user={self.concierge_user!r}, agent_users={self.agent_users!r})")

    @property
    def url(self) -> Optional[str]:
        return self.config.slurk.url

    def require_admin(self, what: str) -> None:
        missing = []
        if not self.url:
            missing.append("the server address (SLURK_URL, or slurk.url in --config)")
        if not self.admin_token:
            missing.append("the admin token (SLURK_ADMIN_TOKEN in the environment, or slurk.admin_token in --config)")
        if missing:
            raise ConfigError(f"Cannot {what}: missing " + "; ".join(missing) + ".")


def format_agent_users(agent_users: Mapping[str, int]) -> str:
    return ",".join(f"{s}:{u}" for s, u in agent_users.items())


def read_study_config(path: Optional[str] = None, env: Mapping[str, str] = os.environ) -> StudyConfig:
    """The bots' Config (via load_config, which reads the study settings too), as the study commands use it.
    Raises ConfigError."""
    cfg = load_config(path, env)
    return StudyConfig(config=cfg, admin_token=cfg.slurk.admin_token, waiting_timeout=cfg.concierge.waiting_timeout,
                       concierge_token=cfg.concierge.token, concierge_user=cfg.concierge.user_id,
                       agent_users=dict(cfg.agent_users))


# ----------------------------------------------------------------------------------------------------------------
# Links and names


def login_link(url: str, name: str, token: str) -> str:
    return f"{url.rstrip('/')}/login?name={quote(str(name), safe='')}&token={token}"


def prolific_link(url: str, token: str) -> str:
    """The study URL to paste into Prolific: Prolific fills in the participant id as the display name."""
    return f"{url.rstrip('/')}/login?name={PROLIFIC_PID}&token={token}"


def name_pool(seed: str) -> list[str]:
    rng = random.Random(f"names:{seed}")
    names = list(NAMES)
    rng.shuffle(names)
    return names


def agent_names(seed: str, seats: list[str]) -> dict[str, str]:
    pool = name_pool(seed)
    return {seat: pool[i % len(pool)] for i, seat in enumerate(seats)}


def participant_name(seed: str, index: int, reserved: int = 0) -> str:
    """Display name of participant `index` (0-based); the first `reserved` names of the pool go to agents."""
    pool = name_pool(seed)
    free = pool[reserved:] or pool
    base = free[index % len(free)]
    round_ = index // len(free)
    return base if round_ == 0 else f"{base}{round_ + 1}"


# ----------------------------------------------------------------------------------------------------------------
# Files


def make_private_dir(path: str) -> str:
    """Create the folder `path` and its missing parents with mode 0700 (only the owner can list or open what is in
    it). Folders that exist already are left as they are. Returns the absolute path."""
    path = os.path.abspath(path)
    missing = []
    p = path
    while not os.path.isdir(p):
        missing.append(p)
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    for d in reversed(missing):
        try:
            os.mkdir(d, 0o700)
        except FileExistsError:
            if not os.path.isdir(d):
                raise
    return path


@contextlib.contextmanager
def private_file(path: str, mode: str = "w", **kwargs) -> Iterator[IO]:
    """Open a file that holds tokens, completion codes or game records for writing: it is a temporary file created
    with mode 0600 (before any content is written; `tempfile.mkstemp`), renamed over `path` when the block ends
    (so a file that was readable by others before is replaced, not reused). Missing folders are made 0700."""
    d = make_private_dir(os.path.dirname(os.path.abspath(path)))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=d)
    try:
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_private(path: str, text: str) -> None:
    """Write a text file that holds secrets: mode 0600 from the start, replaced atomically."""
    with private_file(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)


# Every file the study tools write holds tokens, codes or game records: there is no world-readable variant.
write_text = write_private


def read_env_file(path: str) -> dict[str, str]:
    """KEY=VALUE lines (comments and blank lines ignored; optional quotes stripped)."""
    out: dict[str, str] = {}
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line or line.startswith("#") or "=" not in line:
                continue
            key, _, value = line.partition("=")
            key = key.strip()
            if key.startswith("export "):
                key = key[len("export "):].strip()
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            out[key] = value
    return out


def read_json(path: str) -> Optional[dict]:
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    return data if isinstance(data, dict) else None


def report_error(echo, text: str) -> None:
    """Errors of the study commands go to stderr when printing, or to the caller's echo (tests)."""
    if echo is print:
        print(text, file=sys.stderr)
    else:
        echo(text)
