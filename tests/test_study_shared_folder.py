"""Several studies run from one folder (issue 27 item 8): their task bots share ./bot-state.sqlite3 by default, and
each study's logs and replay go to their own folders.

Every table of the state file (rooms, inputs, agents' memory, inputs seen, the log outbox, the instance lease) is
keyed by (Slurk server, bot user), and `setup` makes a task bot user per study: two studies' bots on one file never
see each other's rooms, inputs or queued log rows.
"""
from __future__ import annotations

from bots.slurk.outbox_table import Outbox
from bots.slurk.store import RoomRecord, RoomStore
from bots.study.logs import DownloadReport, format_report
from tasks.core.protocol import Chat


def test_two_studies_bots_share_one_state_file_without_mixing(tmp_path):
    path = str(tmp_path / "bot-state.sqlite3")
    a = RoomStore(path, server="http://slurk", bot_user=3)  # study 1's task bot
    b = RoomStore(path, server="http://slurk", bot_user=7)  # study 2's task bot, same server, same room id
    try:
        a.open_room(RoomRecord(10, "travel", 1, {"boards": "preset"}, {}))
        b.open_room(RoomRecord(10, "dond", 2, {}, {}))
        a.add_input(10, 1, Chat("a", "from study one", t=1.0))
        b.add_input(10, 1, Chat("a", "from study two", t=1.0))
        out_a, out_b = Outbox(a, "http://slurk", 3), Outbox(b, "http://slurk", 7)
        assert out_a.new_id() == out_b.new_id() == 1  # each bot numbers its own log rows
        ra, rb = a.get(10), b.get(10)
        assert (ra.task, rb.task) == ("travel", "dond")
        assert [i.text for i in ra.inputs] == ["from study one"] and [i.text for i in rb.inputs] == ["from study two"]
        a.close_room(10, "closed", {})
        assert [r.task for r in b.open_rooms()] == ["dond"] and a.open_rooms() == []
    finally:
        a.close()
        b.close()


def test_logs_download_suggests_a_replay_folder_of_its_own():
    text = format_report(DownloadReport(task={"id": 4, "name": "pilot1", "layout_id": 2}, out="slurk-logs/pilot1/"))
    assert "Next: ./run_bot.sh replay slurk-logs/pilot1/ --out replay-out/pilot1" in text
