"""bots.config: YAML + environment, slurk-bots' drop-in names, secrets masked, clear validation errors."""
from __future__ import annotations

import textwrap

import pytest

from bots.config import DEFAULT_STATE_DB, ConfigError, load_config
from tests.toygame import SPEC

TOKEN = "5ec2e7-0000-4000-8000-00000000beef"


def write(tmp_path, text: str) -> str:
    path = tmp_path / "bot.yaml"
    path.write_text(textwrap.dedent(text))
    return str(path)


def test_defaults_without_file_or_env():
    cfg = load_config(None, env={})
    assert cfg.slurk.url is None and cfg.slurk.token is None and cfg.slurk.etag == "auto"
    assert cfg.state_db == DEFAULT_STATE_DB
    assert cfg.person_seats is None and cfg.agents == {} and cfg.task_options == {} and cfg.llm == {}
    assert cfg.timers.inactivity == 300.0 and cfg.completion.platform is None


def test_file_sections_are_read(tmp_path):
    path = write(tmp_path, f"""
        slurk:
          url: http://slurk.example:5000/
          token: {TOKEN}
          user_id: 3
          task_id: "7"
          waiting_room: 2
          etag: "off"
          auth_timeout: 2.5
        agents: {{b: toy}}
        person_seats: 1
        timers: {{inactivity: 60, inactivity_warning: 10, join_timeout: null}}
        completion: {{platform: Prolific, url_template: "https://p.example/done?cc={{code}}"}}
        llm: {{model: m1, api_key: sk-secret-value}}
        state_db: state/x.sqlite3
        task_options: {{turn_limit: 4}}
        """)
    cfg = load_config(path, env={})
    s = cfg.slurk
    assert (s.url, s.token, s.user_id, s.task_id, s.waiting_room, s.etag, s.auth_timeout) == \
        ("http://slurk.example:5000", TOKEN, 3, 7, 2, "off", 2.5)
    assert cfg.agents == {"b": "toy"} and cfg.person_seats == 1
    assert cfg.timers.inactivity == 60 and cfg.timers.inactivity_warning == 10 and cfg.timers.join_timeout is None
    assert cfg.completion.platform == "Prolific" and cfg.completion.link("AB") == "https://p.example/done?cc=AB"
    assert cfg.llm == {"model": "m1", "api_key": "sk-secret-value"}
    assert cfg.state_db == "state/x.sqlite3" and cfg.task_options == {"turn_limit": 4}
    assert cfg.source == path


def test_environment_wins_over_file(tmp_path):
    path = write(tmp_path, """
        slurk: {url: http://file:1, token: file-token, user_id: 1, task_id: 1}
        """)
    env = {"SLURK_URL": "http://env:2", "SLURK_TOKEN": "env-token", "SLURK_USER": "5", "SLURK_TASK_ID": "6",
           "SLURK_WAITING_ROOM": "9", "SLURK_ETAG": "on", "BOT_STATE_DB": "state/e.db", "BOT_PERSON_SEATS": "2",
           "BOT_AGENTS": "b=toy"}
    cfg = load_config(path, env=env)
    s = cfg.slurk
    assert (s.url, s.token, s.user_id, s.task_id, s.waiting_room, s.etag) == \
        ("http://env:2", "env-token", 5, 6, 9, "on")
    assert cfg.state_db == "state/e.db" and cfg.person_seats == 2 and cfg.agents == {"b": "toy"}


def test_slurk_bots_drop_in_names():
    env = {"BOT_TOKEN": TOKEN, "BOT_ID": "4", "SLURK_HOST": "http://127.0.0.1", "SLURK_PORT": "5000",
           "TASK_ID": "3", "WAITING_ROOM": "1"}
    s = load_config(None, env=env).slurk
    assert (s.url, s.token, s.user_id, s.task_id, s.waiting_room) == ("http://127.0.0.1:5000", TOKEN, 4, 3, 1)
    s.require()  # complete


def test_our_names_win_over_drop_in_names():
    env = {"BOT_TOKEN": "theirs", "SLURK_TOKEN": "ours", "BOT_ID": "1", "SLURK_USER": "2",
           "SLURK_HOST": "http://a", "SLURK_URL": "http://b:9", "TASK_ID": "1", "SLURK_TASK_ID": "8"}
    s = load_config(None, env=env).slurk
    assert (s.token, s.user_id, s.url, s.task_id) == ("ours", 2, "http://b:9", 8)


@pytest.mark.parametrize("host,port,url", [
    ("localhost", None, "http://localhost"),
    ("http://localhost:5000/slurk/api", None, "http://localhost:5000"),
    ("https://slurk.example", "8443", "https://slurk.example:8443"),
    ("http://h:80", "90", "http://h:80"),  # an explicit port in the host is kept
])
def test_url_normalisation(host, port, url):
    env = {"SLURK_HOST": host, **({"SLURK_PORT": port} if port else {})}
    assert load_config(None, env=env).slurk.url == url


def test_repr_masks_secrets():
    cfg = load_config(None, env={"SLURK_TOKEN": TOKEN, "SLURK_USER": "1", "SLURK_URL": "http://x",
                                 "SLURK_TASK_ID": "1"})
    cfg.llm = {"model": "m", "api_key": "sk-verysecret", "base_url": "http://llm"}
    text = repr(cfg) + str(cfg) + repr(cfg.slurk)
    assert TOKEN not in text and "sk-verysecret" not in text
    assert "token='***'" in text and "'api_key': '***'" in text and "http://llm" in text


@pytest.mark.parametrize("text,needle", [
    ("slurk: {user_id: abc}", "slurk.user_id must be a whole number; got 'abc'"),
    ("slurk: {etag: sometimes}", "slurk.etag must be one of auto, on, off"),
    ("slurk: {url: 'ftp://x'}", "must be an http(s) address"),
    ("slurk: {colour: red}", "Unknown key(s) 'colour' in the 'slurk' section"),
    ("slurky: {}", "Unknown section(s) 'slurky'"),
    ("timers: {inactivity: -5}", "timers.inactivity must not be negative"),
    ("timers: {nap: 5}", "Unknown timer(s) 'nap'"),
    ("completion: {url_template: 'https://x'}", "must contain {code}"),
    ("agents: [a, b]", "must map seat names to brain names"),
    ("person_seats: two", "person_seats must be a whole number"),
    ("- just a list", "must contain a mapping of sections"),
    ("slurk: [1]", "The 'slurk' section must be a mapping"),
    ("slurk: {url: [", "is not valid YAML"),
])
def test_validation_errors_are_sentences(tmp_path, text, needle):
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, text), env={})
    assert needle in str(err.value)


def test_env_validation_names_the_variable():
    with pytest.raises(ConfigError, match="BOT_ID must be a whole number"):
        load_config(None, env={"BOT_ID": "bot"})
    with pytest.raises(ConfigError, match="SLURK_PORT must be a port number"):
        load_config(None, env={"SLURK_HOST": "h", "SLURK_PORT": "x"})
    with pytest.raises(ConfigError, match="BOT_AGENTS must look like"):
        load_config(None, env={"BOT_AGENTS": "toy"})


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(str(tmp_path / "nope.yaml"), env={})


def test_require_lists_what_is_missing_without_secrets():
    cfg = load_config(None, env={"SLURK_TOKEN": TOKEN})
    with pytest.raises(ConfigError) as err:
        cfg.slurk.require()
    msg = str(err.value)
    assert "server address" in msg and "user id" in msg and "task id" in msg
    assert "the bot's token" not in msg  # the token is set, so it is not listed
    assert TOKEN not in msg


def test_seat_plan_defaults_and_agents():
    cfg = load_config(None, env={})
    assert cfg.seat_plan(SPEC) == (["a", "b"], {})  # default: every seat a person
    cfg.person_seats = 1
    assert cfg.seat_plan(SPEC) == (["a"], {"b": "toy"})  # from SPEC.default_brains
    cfg.person_seats = 0
    assert cfg.seat_plan(SPEC) == ([], {"a": "toy", "b": "toy"})


@pytest.mark.parametrize("person_seats,agents,needle", [
    (3, {}, "person_seats must be between 0 and 2"),
    (1, {"c": "toy"}, "agents names seat(s) 'c'"),
    (1, {"a": "toy"}, "which people take"),
    (1, {"b": "gpt"}, "agents.b is 'gpt', which toy does not know; choose from toy"),
])
def test_seat_plan_errors(person_seats, agents, needle):
    cfg = load_config(None, env={})
    cfg.person_seats, cfg.agents = person_seats, agents
    with pytest.raises(ConfigError) as err:
        cfg.seat_plan(SPEC)
    assert needle in str(err.value)


def test_study_settings_admin_token_concierge_and_agent_users(tmp_path):
    path = write(tmp_path, """
        slurk: {url: http://s:1, admin_token: ADMIN-SECRET}
        timers: {waiting_timeout: 120, join_timeout: 60}
        concierge: {token: CONC-SECRET, user_id: 4}
        agent_users: {b: 9}
        """)
    cfg = load_config(path, env={})
    assert cfg.slurk.admin_token == "ADMIN-SECRET" and cfg.timers.join_timeout == 60
    assert (cfg.concierge.token, cfg.concierge.user_id, cfg.concierge.waiting_timeout) == ("CONC-SECRET", 4, 120)
    assert cfg.agent_users == {"b": 9}
    assert "SECRET" not in repr(cfg) and "SECRET" not in repr(cfg.slurk) and "SECRET" not in repr(cfg.concierge)
    # the environment wins; AGENT_USERS is what `setup` writes into bot.env (seat:user_id, `=` also accepted)
    env = {"SLURK_ADMIN_TOKEN": "ENV-ADMIN", "CONCIERGE_TOKEN": "ENV-CONC", "CONCIERGE_USER": "5",
           "WAITING_TIMEOUT": "30", "AGENT_USERS": "b:11,c=12"}
    cfg = load_config(path, env=env)
    assert (cfg.slurk.admin_token, cfg.concierge.token, cfg.concierge.user_id) == ("ENV-ADMIN", "ENV-CONC", 5)
    assert cfg.concierge.waiting_timeout == 30 and cfg.agent_users == {"b": 11, "c": 12}
    assert "ENV-" not in repr(cfg)
    defaults = load_config(None, env={})
    assert defaults.agent_users == {} and defaults.slurk.admin_token is None
    assert defaults.concierge.waiting_timeout == 600 and defaults.concierge.token is None
    # also accepted inside the concierge section (older study configs)
    assert load_config(write(tmp_path, "concierge: {agent_users: {b: 7}}\n"), env={}).agent_users == {"b": 7}


@pytest.mark.parametrize("text,env,needle", [
    ("concierge: {colour: blue}\n", {}, "Unknown key(s) 'colour' in the 'concierge' section"),
    ("", {"AGENT_USERS": "b"}, "AGENT_USERS must look like `seat:user_id"),
    ("", {"AGENT_USERS": "b:x"}, "AGENT_USERS.b must be a whole number"),
    ("", {"AGENT_USERS": "b:9,c:9"}, "the same Slurk user to several seats"),
    ("agent_users: [9]\n", {}, "agent_users must map agent seats"),
    ("", {"WAITING_TIMEOUT": "soon"}, "WAITING_TIMEOUT"),
    ("concierge: {waiting_timeout: 0}\n", {}, "more than 0 seconds"),
])
def test_study_settings_errors(tmp_path, text, env, needle):
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, text), env=env)
    assert needle in str(err.value)
