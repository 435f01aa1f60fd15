"""Configuration of a bot process: a YAML file plus environment variables (the environment wins).

```yaml
slurk:
  url: http://127.0.0.1:5000     # or SLURK_URL; slurk-bots' SLURK_HOST (+ SLURK_PORT) also works
  token: ...                     # better: SLURK_TOKEN or BOT_TOKEN in the environment
  user_id: 3                     # SLURK_USER or BOT_ID
  task_id: 1                     # SLURK_TASK_ID or TASK_ID
  waiting_room: 2                # SLURK_WAITING_ROOM or WAITING_ROOM (no game is played there)
  etag: auto                     # auto | on | off (SLURK_ETAG)
  auth_timeout: 5                # seconds to wait for `joined_room` before declaring the credentials bad
  admin_token: ...               # better: SLURK_ADMIN_TOKEN; used by the study commands (setup, logs) only
agent_users: {b: 9}              # agent seat -> Slurk user id shown as that seat (AGENT_USERS=b:9,c:10; written by
                                 # `setup` into bot.env). The task bot speaks for the agent under that user's name.
concierge:                       # the waiting-room bot (bots.concierge)
  token: ...                     # better: CONCIERGE_TOKEN
  user_id: 4                     # CONCIERGE_USER
  waiting_timeout: 600           # WAITING_TIMEOUT (also accepted as timers.waiting_timeout)
  rooms_per_minute: 30           # CONCIERGE_ROOMS_PER_MINUTE: at most this many rooms created in any minute
agents: {b: toy}                 # seat -> brain, for seats not taken by people (default: TaskSpec.default_brains)
person_seats: 1                  # people per room (default: every seat), or seat names: [assistant]
timers: {join_timeout: 300, inactivity: 300, inactivity_warning: 60, partner_left_grace: 120}
completion: {platform: Prolific, url_template: "https://app.prolific.com/submissions/complete?cc={code}",
             left_policy: no_code}  # or COMPLETION_LEFT_POLICY: what a person who left gets (no_code|partial|full)
llm: {model: ..., base_url: ...} # passed through to bots.llm
state_db: ./bot-state.sqlite3    # BOT_STATE_DB
task_options: {}                 # passed to the Game; TASK_OPTIONS (JSON, written by `setup`) updates it
```

Environment names. Ours: `SLURK_URL`, `SLURK_TOKEN`, `SLURK_USER`, `SLURK_TASK_ID`, `SLURK_WAITING_ROOM`, `SLURK_ETAG`,
`BOT_STATE_DB`, `BOT_PERSON_SEATS`, `BOT_AGENTS` (`seat=brain,seat=brain`), `AGENT_USERS` (`seat:user_id,...`; `=` works
too), `SLURK_ADMIN_TOKEN`, `CONCIERGE_TOKEN`, `CONCIERGE_USER`, `WAITING_TIMEOUT`,
`CONCIERGE_ROOMS_PER_MINUTE`. slurk-bots' drop-in names: `BOT_TOKEN`,
`BOT_ID`, `SLURK_HOST` (+ `SLURK_PORT`), `TASK_ID`, `WAITING_ROOM`. Precedence: file < slurk-bots names < our names.
Secrets are never part of a repr or an error message.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional
from urllib.parse import urlsplit

import yaml

from tasks.core.codes import LEFT_POLICIES, CompletionConfig
from tasks.core.match import TimerConfig
from bots.pacing import Pacing

DEFAULT_STATE_DB = "./bot-state.sqlite3"
DEFAULT_WAITING_TIMEOUT = 600.0
DEFAULT_ROOMS_PER_MINUTE = 30
SECTIONS = ("slurk", "agents", "person_seats", "timers", "completion", "llm", "state_db", "task_options",
            "agent_users", "concierge", "pacing")
CONCIERGE_KEYS = ("token", "user_id", "waiting_timeout", "agent_users", "rooms_per_minute")
ETAG_MODES = ("auto", "on", "off")
_SECRET_WORDS = ("token", "key", "secret", "password")

# (config key, our env name, slurk-bots env name)
_SLURK_ENV = (
    ("token", "SLURK_TOKEN", "BOT_TOKEN"),
    ("user_id", "SLURK_USER", "BOT_ID"),
    ("task_id", "SLURK_TASK_ID", "TASK_ID"),
    ("waiting_room", "SLURK_WAITING_ROOM", "WAITING_ROOM"),
)


class ConfigError(ValueError):
    """A configuration problem, phrased as a sentence a person can act on."""


def _mask(value: Optional[str]) -> Optional[str]:
    return None if value is None else "***"


@dataclass
class SlurkSettings:
    url: Optional[str] = None
    token: Optional[str] = field(default=None, repr=False)
    user_id: Optional[int] = None
    task_id: Optional[int] = None
    waiting_room: Optional[int] = None
    etag: str = "auto"
    auth_timeout: float = 5.0
    emit_timeout: float = 10.0
    admin_token: Optional[str] = field(default=None, repr=False)

    def __repr__(self) -> str:
        return (f"SlurkSettings(url={self.url!r}, token={_mask(self.token)!r}, user_id={self.user_id!r}, "
                f"task_id={self.task_id!r}, waiting_room={self.waiting_room!r}, etag={self.etag!r}, "
                f"auth_timeout={self.auth_timeout!r}, emit_timeout={self.emit_timeout!r}, "
                f"admin_token={_mask(self.admin_token)!r})")

    def require(self) -> None:
        """Raise ConfigError unless everything needed to serve on a Slurk server is set."""
        missing = []
        if not self.url:
            missing.append("the server address (slurk.url, or SLURK_URL / SLURK_HOST)")
        if not self.token:
            missing.append("the bot's token (slurk.token, or SLURK_TOKEN / BOT_TOKEN)")
        if self.user_id is None:
            missing.append("the bot's user id (slurk.user_id, or SLURK_USER / BOT_ID)")
        if self.task_id is None:
            missing.append("the task id (slurk.task_id, or SLURK_TASK_ID / TASK_ID)")
        if missing:
            raise ConfigError("Cannot connect to Slurk: missing " + "; ".join(missing) + ".")


@dataclass
class ConciergeSettings:
    """The waiting-room bot's own credentials and its waiting timeout (seconds before a waiting person is paid)."""
    token: Optional[str] = field(default=None, repr=False)
    user_id: Optional[int] = None
    waiting_timeout: float = DEFAULT_WAITING_TIMEOUT
    rooms_per_minute: int = DEFAULT_ROOMS_PER_MINUTE  # cap on the rooms the concierge creates per minute

    def __repr__(self) -> str:
        return (f"ConciergeSettings(token={_mask(self.token)!r}, user_id={self.user_id!r}, "
                f"waiting_timeout={self.waiting_timeout!r}, rooms_per_minute={self.rooms_per_minute!r})")


@dataclass
class Config:
    slurk: SlurkSettings = field(default_factory=SlurkSettings)
    agents: dict = field(default_factory=dict)
    person_seats: "Optional[int | list[str]]" = None  # people per room, or the seats they take by name
    timers: TimerConfig = field(default_factory=TimerConfig)
    completion: CompletionConfig = field(default_factory=CompletionConfig)
    llm: dict = field(default_factory=dict)
    state_db: str = DEFAULT_STATE_DB
    task_options: dict = field(default_factory=dict)
    agent_users: dict = field(default_factory=dict)  # agent seat -> Slurk user id (the agent's own Slurk user)
    concierge: ConciergeSettings = field(default_factory=ConciergeSettings)
    pacing: Pacing = field(default_factory=Pacing)  # agents' replies held back like a person typing (Slurk only)
    source: Optional[str] = None  # the file it was read from

    def __repr__(self) -> str:
        llm = {k: ("***" if any(w in k.lower() for w in _SECRET_WORDS) and v is not None else v)
               for k, v in self.llm.items()}
        return (f"Config(slurk={self.slurk!r}, agents={self.agents!r}, person_seats={self.person_seats!r}, "
                f"timers={self.timers!r}, completion={self.completion!r}, llm={llm!r}, state_db={self.state_db!r}, "
                f"task_options={self.task_options!r}, agent_users={self.agent_users!r}, "
                f"concierge={self.concierge!r}, source={self.source!r})")

    def seat_plan(self, spec) -> tuple[list[str], dict[str, str]]:
        """(person seats in the order people take them, {agent seat: brain name}) for a TaskSpec.

        People take seats in `game.person_seat_order` (or `seats`) order; the remaining seats get brains from
        `agents`, defaulting to `spec.default_brains` (one per seat, in `spec.seats` order).
        """
        seats = tuple(spec.seats)
        order = default_person_order(spec)
        if isinstance(self.person_seats, (list, tuple)):  # the seats people take, by name (e.g. [assistant])
            persons = list(self.person_seats)
            wrong = [s for s in persons if s not in seats]
            if wrong or len(set(persons)) != len(persons):
                raise ConfigError(f"person_seats names {', '.join(map(repr, persons))}; {spec.name}'s seats are "
                                  f"{', '.join(seats)} (each at most once).")
            n = len(persons)
        else:
            n = len(seats) if self.person_seats is None else self.person_seats
            if not 0 <= n <= len(seats):
                raise ConfigError(f"person_seats must be between 0 and {len(seats)} for {spec.name} "
                                  f"(its seats are {', '.join(seats)}); got {n}.")
            persons = order[:n]
        unknown = [s for s in self.agents if s not in seats]
        if unknown:
            raise ConfigError(f"agents names seat(s) {', '.join(map(repr, unknown))}, but {spec.name} has the seats "
                              f"{', '.join(seats)}.")
        taken = [s for s in self.agents if s in persons]
        if taken:
            raise ConfigError(f"agents assigns a brain to seat(s) {', '.join(map(repr, taken))}, which people take "
                              f"(person_seats={n}); lower person_seats or remove those agents.")
        brains: dict[str, str] = {}
        for seat in seats:
            if seat in persons:
                continue
            name = self.agents.get(seat)
            if name is None:
                idx = seats.index(seat)
                defaults = tuple(spec.default_brains)
                if idx < len(defaults):
                    name = defaults[idx]
                elif spec.brains:
                    name = next(iter(spec.brains))
                else:
                    raise ConfigError(f"Seat {seat!r} of {spec.name} needs a person or an agent, and the task "
                                      f"declares no brains; set person_seats to {len(seats)}.")
            if name not in spec.brains:
                raise ConfigError(f"agents.{seat} is {name!r}, which {spec.name} does not know; choose from "
                                  f"{', '.join(spec.brains) or '(none)'}.")
            brains[seat] = name
        return persons, brains


# ----------------------------------------------------------------------------------------------------------------


def load_config(path: Optional[str] = None, env: Mapping[str, str] = os.environ) -> Config:
    raw = _read_file(path) if path else {}
    unknown = [k for k in raw if k not in SECTIONS]
    if unknown:
        where = f"config file {path}" if path else "the configuration"
        raise ConfigError(f"Unknown section(s) {', '.join(map(repr, unknown))} in {where}; "
                          f"known sections: {', '.join(SECTIONS)}.")
    cfg = Config(source=path)
    cfg.slurk = _slurk_settings(_section(raw, "slurk", dict), env)
    cfg.agents = _agents(raw.get("agents"), env)
    cfg.person_seats = _person_seats(raw.get("person_seats"), env)
    timers = dict(_section(raw, "timers", dict))
    waiting = timers.pop("waiting_timeout", None)  # the concierge's timer, also accepted among the timers
    cfg.timers = _timers(timers)
    cfg.completion = _completion(_section(raw, "completion", dict), env)
    cfg.llm = dict(_section(raw, "llm", dict))
    cfg.state_db = str(env.get("BOT_STATE_DB") or raw.get("state_db") or DEFAULT_STATE_DB)
    cfg.task_options = dict(_section(raw, "task_options", dict))
    if env.get("TASK_OPTIONS"):  # the study's task options, as `setup` writes them into bot.env (JSON)
        cfg.task_options.update(_json_mapping(env["TASK_OPTIONS"], "TASK_OPTIONS"))
    concierge = _section(raw, "concierge", dict)
    cfg.concierge = _concierge(concierge, waiting, env)
    agent_users = raw.get("agent_users")
    if agent_users is None:
        agent_users = concierge.get("agent_users")
    try:
        cfg.pacing = Pacing.from_section(raw.get("pacing") if raw.get("pacing") is not None else {},
                                         env.get("BOT_PACING"))
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"The 'pacing' section: {exc}.") from None
    cfg.agent_users = parse_agent_users(env.get("AGENT_USERS") or agent_users,
                                        "AGENT_USERS" if env.get("AGENT_USERS") else "agent_users")
    return cfg


def _read_file(path: str) -> dict:
    if not os.path.exists(path):
        raise ConfigError(f"Config file {path} does not exist.")
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    except yaml.YAMLError as exc:
        raise ConfigError(f"Config file {path} is not valid YAML: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"Config file {path} must contain a mapping of sections (slurk:, agents:, ...), "
                          f"not a {type(data).__name__}.")
    return data


def _section(raw: dict, name: str, kind: type) -> Any:
    value = raw.get(name)
    if value is None:
        return kind()
    if not isinstance(value, kind):
        raise ConfigError(f"The {name!r} section must be a mapping (key: value lines), not a {type(value).__name__}.")
    return value


def _int(value: Any, what: str) -> Optional[int]:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ConfigError(f"{what} must be a whole number, not a boolean.")
    try:
        return int(str(value).strip())
    except ValueError:
        raise ConfigError(f"{what} must be a whole number; got {str(value)!r}.") from None


def _number(value: Any, what: str, allow_none: bool = True) -> Optional[float]:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or value is None:
        raise ConfigError(f"{what} must be a number of seconds" + (" or null" if allow_none else "") + ".")
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{what} must be a number of seconds; got {value!r}.") from None
    if out < 0:
        raise ConfigError(f"{what} must not be negative; got {value!r}.")
    return out


def _normalize_url(url: str, port: Optional[str] = None, what: str = "slurk.url") -> str:
    url = url.strip()
    if "://" not in url:
        url = "http://" + url
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{what} must be an http(s) address such as http://127.0.0.1:5000; got {url!r}.")
    if port:
        if not str(port).strip().isdigit():
            raise ConfigError(f"SLURK_PORT must be a port number; got {port!r}.")
        if parts.port is None:
            url = f"{parts.scheme}://{parts.netloc}:{str(port).strip()}{parts.path}"
    url = url.rstrip("/")
    if url.endswith("/slurk/api"):
        url = url[: -len("/slurk/api")]
    return url


def _slurk_settings(section: dict, env: Mapping[str, str]) -> SlurkSettings:
    known = {f.name for f in dataclasses.fields(SlurkSettings)}
    unknown = [k for k in section if k not in known]
    if unknown:
        raise ConfigError(f"Unknown key(s) {', '.join(map(repr, unknown))} in the 'slurk' section; "
                          f"known keys: {', '.join(sorted(known))}.")
    s = SlurkSettings()
    if section.get("url"):
        s.url = _normalize_url(str(section["url"]))
    if env.get("SLURK_HOST"):
        s.url = _normalize_url(env["SLURK_HOST"], env.get("SLURK_PORT"), "SLURK_HOST")
    if env.get("SLURK_URL"):
        s.url = _normalize_url(env["SLURK_URL"], None, "SLURK_URL")
    values: dict[str, Any] = {k: section.get(k) for k, _, _ in _SLURK_ENV}
    sources: dict[str, str] = {k: f"slurk.{k}" for k, _, _ in _SLURK_ENV}
    for key, ours, theirs in _SLURK_ENV:
        for name in (theirs, ours):  # ours last: it wins
            if env.get(name):
                values[key] = env[name]
                sources[key] = name
    token = values["token"]
    s.token = None if token in (None, "") else str(token).strip()
    for key in ("user_id", "task_id", "waiting_room"):
        setattr(s, key, _int(values[key], sources[key]))
    etag = str(env.get("SLURK_ETAG") or section.get("etag") or "auto").strip().lower()
    if etag in ("true", "yes", "1"):
        etag = "on"
    if etag in ("false", "no", "0"):
        etag = "off"
    if etag not in ETAG_MODES:
        raise ConfigError(f"slurk.etag must be one of {', '.join(ETAG_MODES)}; got {etag!r}.")
    s.etag = etag
    if section.get("auth_timeout") is not None:
        s.auth_timeout = _number(section["auth_timeout"], "slurk.auth_timeout", allow_none=False)
    if section.get("emit_timeout") is not None:
        s.emit_timeout = _number(section["emit_timeout"], "slurk.emit_timeout", allow_none=False)
    admin = env.get("SLURK_ADMIN_TOKEN") or section.get("admin_token")
    s.admin_token = (str(admin).strip() or None) if admin is not None else None
    return s


def _concierge(section: dict, waiting: Any, env: Mapping[str, str]) -> ConciergeSettings:
    unknown = [k for k in section if k not in CONCIERGE_KEYS]
    if unknown:
        raise ConfigError(f"Unknown key(s) {', '.join(map(repr, unknown))} in the 'concierge' section; "
                          f"known keys: {', '.join(CONCIERGE_KEYS)}.")
    c = ConciergeSettings()
    token = env.get("CONCIERGE_TOKEN") or section.get("token")
    c.token = (str(token).strip() or None) if token is not None else None
    c.user_id = _int(env.get("CONCIERGE_USER") or section.get("user_id"), "CONCIERGE_USER / concierge.user_id")
    w = env.get("WAITING_TIMEOUT") or section.get("waiting_timeout")
    if w is None:
        w = waiting
    if w is not None:
        what = "the waiting timeout (WAITING_TIMEOUT / concierge.waiting_timeout / timers.waiting_timeout)"
        if isinstance(w, bool):
            raise ConfigError(f"{what} must be a number of seconds; got {w!r}.")
        try:
            c.waiting_timeout = float(w)
        except (TypeError, ValueError):
            raise ConfigError(f"{what} must be a number of seconds; got {w!r}.") from None
        if c.waiting_timeout <= 0:
            raise ConfigError(f"{what} must be more than 0 seconds; got {w!r}.")
    rpm = _int(env.get("CONCIERGE_ROOMS_PER_MINUTE") or section.get("rooms_per_minute"),
               "CONCIERGE_ROOMS_PER_MINUTE / concierge.rooms_per_minute")
    if rpm is not None:
        if rpm < 1:
            raise ConfigError(f"CONCIERGE_ROOMS_PER_MINUTE / concierge.rooms_per_minute must be 1 or more; got {rpm}.")
        c.rooms_per_minute = rpm
    return c


def parse_agent_users(value: Any, what: str = "AGENT_USERS") -> dict:
    """Agent seat -> Slurk user id, from `seat:user_id,seat:user_id` (as `setup` writes AGENT_USERS; `=` works too)
    or a mapping. `ghost:9,b:12` -> {"ghost": 9, "b": 12}."""
    if value in (None, ""):
        return {}
    if isinstance(value, Mapping):
        items = [(str(k), v) for k, v in value.items()]
    elif isinstance(value, str):
        items = []
        for part in value.split(","):
            if not part.strip():
                continue
            seat, sep, uid = part.replace("=", ":").partition(":")
            if not sep or not seat.strip() or not uid.strip():
                raise ConfigError(f"{what} must look like `seat:user_id,seat:user_id`; got {value!r}.")
            items.append((seat.strip(), uid))
    else:
        raise ConfigError(f"{what} must map agent seats to Slurk user ids, e.g. `{{b: 9}}` or `b:9,c:10`; "
                          f"got a {type(value).__name__}.")
    out: dict[str, int] = {}
    for seat, uid in items:
        n = _int(uid, f"{what}.{seat}")
        if n is None:
            raise ConfigError(f"{what}.{seat} must be a Slurk user id.")
        out[seat] = n
    if len(set(out.values())) != len(out):
        raise ConfigError(f"{what} gives the same Slurk user to several seats; each agent seat needs its own user.")
    return out


def _agents(value: Any, env: Mapping[str, str]) -> dict:
    out: dict[str, str] = {}
    if value is not None:
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise ConfigError("The 'agents' section must map seat names to brain names, e.g. `agents: {b: toy}`.")
        out = {str(k): v for k, v in value.items()}
    if env.get("BOT_AGENTS"):
        out = {}
        for part in env["BOT_AGENTS"].split(","):
            seat, sep, brain = part.partition("=")
            if not sep or not seat.strip() or not brain.strip():
                raise ConfigError(f"BOT_AGENTS must look like `seat=brain,seat=brain`; got {env['BOT_AGENTS']!r}.")
            out[seat.strip()] = brain.strip()
    return out


def default_person_order(spec) -> list[str]:
    """The order in which people take seats when person_seats is a number: the game's `person_seat_order`, then
    the other seats."""
    seats = tuple(spec.seats)
    order = [s for s in (getattr(spec.game_class, "person_seat_order", ()) or ()) if s in seats]
    return order + [s for s in seats if s not in order]


def _person_seats(value: Any, env: Mapping[str, str]) -> "Optional[int | list[str]]":
    """A number of people (they take the game's person seats in order), or the seats people take, by name: a list,
    or `user1,assistant` in BOT_PERSON_SEATS."""
    what = "person_seats"
    if env.get("BOT_PERSON_SEATS"):
        value, what = env["BOT_PERSON_SEATS"], "BOT_PERSON_SEATS"
    if what == "BOT_PERSON_SEATS" and value.strip() and not value.strip().lstrip("-").isdigit():
        value = [s.strip() for s in value.split(",") if s.strip()]  # in the file, seat names are a YAML list
    if isinstance(value, (list, tuple)):
        if not all(isinstance(s, str) and s for s in value):
            raise ConfigError(f"{what} must be a number of people or a list of seat names; got {value!r}.")
        return list(value)
    n = _int(value, what)
    if n is not None and n < 0:
        raise ConfigError(f"{what} must be 0 or more; got {n}.")
    return n


def _timers(section: dict) -> TimerConfig:
    known = {f.name for f in dataclasses.fields(TimerConfig)}
    unknown = [k for k in section if k not in known]
    if unknown:
        raise ConfigError(f"Unknown timer(s) {', '.join(map(repr, unknown))}; "
                          f"known timers: {', '.join(sorted(known))}.")
    values = {}
    for key, v in section.items():
        values[key] = _number(v, f"timers.{key}", allow_none=(key != "inactivity_warning"))
    return TimerConfig(**values)


def _json_mapping(text: str, what: str) -> dict:
    import json

    try:
        value = json.loads(text)
    except ValueError:
        raise ConfigError(f"{what} must be a JSON object such as {{\"negotiation\": 4}}; got {text!r}.") from None
    if not isinstance(value, dict):
        raise ConfigError(f"{what} must be a JSON object such as {{\"negotiation\": 4}}; got {text!r}.")
    return value


def _completion(section: dict, env: Mapping[str, str] = {}) -> CompletionConfig:
    unknown = [k for k in section if k not in ("platform", "url_template", "left_policy")]
    if unknown:
        raise ConfigError(f"Unknown key(s) {', '.join(map(repr, unknown))} in the 'completion' section; "
                          "known keys: platform, url_template, left_policy.")
    c = CompletionConfig()
    policy = env.get("COMPLETION_LEFT_POLICY") or section.get("left_policy")
    if policy is not None:
        if str(policy) not in LEFT_POLICIES:
            raise ConfigError(f"completion.left_policy (COMPLETION_LEFT_POLICY) must be one of "
                              f"{', '.join(LEFT_POLICIES)}; got {policy!r}.")
        c.left_policy = str(policy)
    if section.get("platform") is not None:
        c.platform = str(section["platform"])
    if section.get("url_template") is not None:
        tpl = str(section["url_template"])
        if "{code}" not in tpl:
            raise ConfigError("completion.url_template must contain {code}, where the completion code goes.")
        c.url_template = tpl
    return c
