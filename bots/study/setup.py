"""`./run_bot.sh setup <task> --participants N [--study NAME] [--people-per-room K] [--dry-run] [--out DIR]
[--config FILE]`: provision a study on a Slurk server.

Creates (or, on a re-run with the same study name, reuses) on the server:
  * the task's layout, with our plugins embedded (bots.layouts.build_layout);
  * the Slurk task, named after the study, with `num_users` = people per room (all seats, unless agent seats are
    configured with --people-per-room / person_seats / agents);
  * a waiting room with layouts/waiting_room.json (read-only, no user list);
  * the task bot and the concierge (waiting-room bot): a user each, with a token whose room is the waiting room and
    permissions api, send_message, send_html_message, send_command, send_privately;
  * for agent seats, a user per seat with a human-looking name (the task bot may show the agent under it);
  * N participant tokens, each with its own permissions row (send_message, send_command, send_privately: the task
    page sends commands to the bot alone, see bots.study.provision), one registration, room = the waiting room,
    task = the task.

Writes `<out>/<study>/participants.csv` (login links, and the Prolific study URL when completion.platform is set),
`<out>/<study>/bot.env` (the bots' environment with the bot tokens) and `<out>/<study>/study.json` (the ids of
everything created, and the participant tokens). All three are created with mode 0600, and the folders it creates
with 0700. (setup does not create the task bot's state database; the bot does, bots.slurk.store.) A re-run checks every recorded object on the server, re-creates what is gone, and
only adds the missing participant tokens. `--dry-run` prints the plan and makes no write request.

The admin token comes from SLURK_ADMIN_TOKEN or slurk.admin_token in --config; the server from SLURK_URL or
slurk.url. Neither is ever printed or written.

The steps on the server are in provisioner.py, the task options' checks in task_options.py.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Mapping, Optional

from bots.config import ConfigError
from bots.slurk.rest import SlurkAPIError, SlurkREST

from tasks import available_tasks
from tasks.core.codes import LEFT_POLICIES

from .provision import read_study_config, report_error
from .provisioner import MANIFEST, PARTICIPANTS_CSV, Provisioner, SetupError, SetupResult
from .task_options import option_keys, parse_option_args, study_options


def format_result(res: SetupResult, url: str, spec, persons: list[str], brains: dict) -> str:
    out = []
    mix = f"{len(persons)} {'person' if len(persons) == 1 else 'people'} per room"
    if brains:
        mix += " + agent seat(s) " + ", ".join(f"{s} ({b})" for s, b in brains.items())
    head = "Dry run: nothing is created or written. Plan for study" if res.dry_run else "Study"
    out.append(f"{head} {res.study!r} on {url}: task {spec.name} ({spec.title}), {mix}")
    m = res.manifest
    options = m.get("task_options") or {}
    out.append("Task options: " + (", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(options.items()))
                                   or "none (the game's defaults)") + "  (recorded in every game's log)")
    undeclared = sorted(set(options) - set(option_keys(spec)))
    if undeclared:
        out.append(f"  not declared by {spec.name} (passed to the game as given): {', '.join(undeclared)}")
    policy = m.get("left_policy")
    if policy:
        out.append(f"A person who leaves a game before its end gets: {policy} ({LEFT_POLICIES.get(policy, '')})")
    for s in res.steps:
        out.append(f"  {s}")
    if res.participants:
        out.append("")
        where = os.path.join(res.folder, PARTICIPANTS_CSV)
        out.append(f"Participants ({len(res.participants)}" + ("" if res.dry_run else f"; also in {where}") + "):")
        for p in res.participants:
            line = f"  {p['index']:>3}  {p['name']:<10} {p['login_link']}"
            if p["used"] == "yes":
                line += "  (used)"
            out.append(line)
        if "prolific_url" in res.participants[0]:
            out.append("Prolific study URL template (one per token: Prolific fills in the participant id as the name):")
            out.append(f"  {res.participants[0]['prolific_url'].rsplit('token=', 1)[0]}token=<token>")
    if not res.dry_run:
        m = res.manifest
        out.append("")
        out.append(f"Bot environment: {res.files.get('bot_env')} (contains the bot tokens: keep it private)")
        out.append(f"Manifest: {os.path.join(res.folder, MANIFEST)}  (task {m.get('task_id')}, waiting room "
                   f"{m.get('waiting_room')})")
        out.append("Start the bots:")
        out.append(f"  set -a; . {res.files.get('bot_env')}; set +a")
        out.append(f"  ./run_bot.sh serve {spec.name}    # the task bot")
        out.append("  ./run_bot.sh concierge         # the waiting-room bot")
        out.append("A person who closes the tab comes back by opening " + url.rstrip("/") + "/ in the same browser "
                   "(a login link works once).")
        logs_dir = os.path.join("slurk-logs", res.study)
        out.append(f"Afterwards: ./run_bot.sh logs download --task {res.study} --out {logs_dir}"
                   f"    # or --task {m.get('task_id')}")
        out.append(f"            ./run_bot.sh replay {logs_dir} --out {os.path.join('replay-out', res.study)}")
    return "\n".join(out)



def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="run_bot.sh setup", description=__doc__.splitlines()[0])
    p.add_argument("task", help=f"task name ({', '.join(available_tasks())}) or package.module:SPEC")
    p.add_argument("--participants", type=int, required=True, metavar="N", help="participant tokens the study needs")
    p.add_argument("--study", help="study name (default: the task name); re-running with it reuses what exists")
    p.add_argument("--people-per-room", type=int, metavar="K",
                   help="people per room (default: person_seats from the config, else every seat); the other "
                        "seats are played by agents")
    p.add_argument("--person-seats", metavar="SEATS",
                   help="the seats people take, by name (e.g. assistant, or user1,user2); the other seats are "
                        "played by agents")
    p.add_argument("--dry-run", action="store_true", help="print what would be created; send no write request")
    p.add_argument("--out", default="studies", help="folder for the study's files (default: studies)")
    p.add_argument("--config", help="YAML config (slurk.url, slurk.admin_token, agents, person_seats, completion, "
                                    "task_options)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a task option of the study (repeatable; JSON values allowed), e.g. negotiation=4; "
                        "overrides task_options in --config")
    p.add_argument("--preset", metavar="NAME", help="task option preset: a named set of the task's options (e.g. "
                   "paper); --option wins")
    p.add_argument("--paper-prompts", metavar="PATH", help="task option paper_prompts: a checkout of the paper's "
                   "original release, for presets that read its prompts (the bots' machine must have it too)")
    p.add_argument("--left-policy", choices=tuple(LEFT_POLICIES),
                   help="what a person who left a game before its end gets: " +
                        "; ".join(f"{k}: {v}" for k, v in LEFT_POLICIES.items()))
    return p


def main(argv: Optional[list[str]] = None, env: Mapping[str, str] = os.environ, echo=print) -> int:
    args = build_parser().parse_args(argv)
    if args.participants < 0:
        report_error(echo, "setup: --participants must be 0 or more")
        return 2
    study = args.study or None
    try:
        from bots.slurk.serve import load_spec

        spec = load_spec(args.task)
        scfg = read_study_config(args.config, env)
        scfg.require_admin("set up a study")
        cfg = scfg.config
        if args.people_per_room is not None and args.person_seats:
            raise ConfigError("give either --people-per-room or --person-seats, not both.")
        if args.people_per_room is not None:
            cfg.person_seats = args.people_per_room
        if args.person_seats:
            cfg.person_seats = [s.strip() for s in args.person_seats.split(",") if s.strip()]
        persons, brains = cfg.seat_plan(spec)
        flags = {k: v for k, v in (("preset", args.preset), ("paper_prompts", args.paper_prompts)) if v}
        cfg.task_options = study_options(spec, {**cfg.task_options, **flags, **parse_option_args(args.option)})
        if args.left_policy:
            cfg.completion.left_policy = args.left_policy
        if not persons:
            raise ConfigError("A study needs at least one person per room (--people-per-room 1 or more).")
        name = study or spec.name
        if not name or any(c in name for c in "/\\") or name.startswith("."):
            raise ConfigError(f"--study must be a plain name (no slashes); got {name!r}.")
    except (ConfigError, ValueError) as exc:
        report_error(echo, f"setup: {exc}")
        return 2
    rest = SlurkREST(scfg.url, scfg.admin_token, etag=cfg.slurk.etag)
    prov = Provisioner(rest, scfg, spec, name, args.out, args.participants, persons, brains, dry_run=args.dry_run)
    try:
        res = prov.run()
    except SetupError as exc:
        report_error(echo, f"setup: {exc}")
        return 2
    except SlurkAPIError as exc:
        if args.dry_run and exc.status == 0:
            report_error(echo, f"setup: {exc.message}; cannot check what exists (dry run)")
        else:
            report_error(echo, f"setup: {exc}. What was created so far is recorded in {prov.folder}/{MANIFEST}; "
                       "re-run the same command to continue.")
        return 1
    finally:
        rest.close()
    echo(format_result(res, scfg.url, spec, persons, brains))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
