"""bots.slurk.rest: unit tests with `responses`, then the same client against the double (ETags off/on) and,
when configured, a real Slurk server."""
from __future__ import annotations

import json

import pytest
import requests
import responses

from bots.slurk.rest import SlurkAPIError, SlurkREST

BASE = "http://slurk.test"
API = BASE + "/slurk/api"
TOKEN = "11111111-2222-3333-4444-555555555555"


@pytest.fixture
def rest():
    return SlurkREST(BASE, TOKEN)


# ----------------------------------------------------------------------------------------------------------------
# unit tests


def test_repr_hides_the_token_and_the_url_is_normalised():
    r = SlurkREST(BASE + "/slurk/api/", TOKEN)
    assert r.api == API
    assert TOKEN not in repr(r) and "***" in repr(r)


@responses.activate
def test_requests_carry_bearer_token_and_json(rest):
    responses.post(API + "/logs", json={"id": 1}, status=201)
    rest.post_log("confirmation_log", room_id=3, data={"x": 1}, receiver_id=5)
    req = responses.calls[0].request
    assert req.headers["Authorization"] == f"Bearer {TOKEN}"
    assert json.loads(req.body) == {"event": "confirmation_log", "room_id": 3, "receiver_id": 5, "data": {"x": 1}}


@responses.activate
def test_server_messages_become_slurk_api_errors(rest):
    responses.get(API + "/rooms/999", status=404, json={
        "code": 404, "status": "Not Found", "message": "The requested URL was not found on the server.",
        "errors": {"query": {"room_id": "Room `999` does not exist"}}})
    responses.post(API + "/rooms", status=422, json={
        "code": 422, "status": "Unprocessable Entity",
        "errors": {"json": {"layout_id": ["Layout `9` does not exist"]}}})
    responses.patch(API + "/rooms/1/text/x", status=422, json={
        "code": 422, "status": "Unprocessable Entity", "message": "The request was well-formed but ..."})
    with pytest.raises(SlurkAPIError) as e404:
        rest.get_room(999)
    assert e404.value.status == 404 and "Room `999` does not exist" in e404.value.message
    with pytest.raises(SlurkAPIError) as e422:
        rest.create_room(9)
    assert e422.value.status == 422 and e422.value.message == "layout_id: Layout `9` does not exist"
    with pytest.raises(SlurkAPIError) as e422b:
        rest.set_text(1, "x", "hi", receiver_id=7)
    assert e422b.value.message.startswith("The request was well-formed")
    assert "PATCH /rooms/1/text/x" in str(e422b.value)


@responses.activate
def test_unreachable_server_is_status_zero(rest):
    responses.get(API + "/users/1", body=requests.ConnectionError("refused"))
    with pytest.raises(SlurkAPIError) as err:
        rest.get_user(1)
    assert err.value.status == 0 and "cannot reach Slurk" in err.value.message
    assert TOKEN not in str(err.value)


@responses.activate
def test_conditional_write_sends_fresh_etag(rest):
    responses.get(API + "/users/4", json={"id": 4}, headers={"ETag": '"u4-v1"'})
    responses.delete(API + "/users/4/rooms/2", status=204)
    rest.leave_room(4, 2)
    assert [c.request.method for c in responses.calls] == ["GET", "DELETE"]
    assert responses.calls[1].request.headers["If-Match"] == '"u4-v1"'


@responses.activate
def test_conditional_write_without_etags_uses_star(rest):
    responses.get(API + "/permissions/3", json={"id": 3})  # ETags off: no header
    responses.patch(API + "/permissions/3", json={"id": 3, "send_message": False})
    assert rest.patch_permissions(3, send_message=False)["send_message"] is False
    assert responses.calls[1].request.headers["If-Match"] == "*"
    assert json.loads(responses.calls[1].request.body) == {"send_message": False}


@responses.activate
def test_conditional_write_retries_once_on_412(rest):
    responses.get(API + "/users/4", json={"id": 4}, headers={"ETag": '"old"'})
    responses.get(API + "/users/4", json={"id": 4}, headers={"ETag": '"new"'})
    responses.delete(API + "/users/4/rooms/2", status=412, json={"code": 412, "message": "The precondition ..."})
    responses.delete(API + "/users/4/rooms/2", status=204)
    rest.leave_room(4, 2)
    sent = [c.request.headers.get("If-Match") for c in responses.calls if c.request.method == "DELETE"]
    assert sent == ['"old"', '"new"']


@responses.activate
def test_conditional_write_gives_up_after_the_retry(rest):
    responses.get(API + "/rooms/1", json={"id": 1}, headers={"ETag": '"a"'})
    responses.patch(API + "/rooms/1", status=412, json={"code": 412, "message": "The precondition failed."})
    with pytest.raises(SlurkAPIError) as err:
        rest.update_room(1, read_only=True)
    assert err.value.status == 412
    assert sum(c.request.method == "PATCH" for c in responses.calls) == 2


@responses.activate
def test_etag_off_skips_the_get_but_recovers_from_428():
    rest = SlurkREST(BASE, TOKEN, etag="off")
    responses.patch(API + "/layouts/1", status=428,
                    json={"code": 428, "message": "This request is required to be conditional"})
    responses.get(API + "/layouts/1", json={"id": 1}, headers={"ETag": '"l1"'})
    responses.patch(API + "/layouts/1", json={"id": 1, "title": "t"})
    assert rest.update_layout(1, title="t")["title"] == "t"
    assert "If-Match" not in responses.calls[0].request.headers
    assert responses.calls[2].request.headers["If-Match"] == '"l1"'


@responses.activate
def test_room_ui_payloads(rest):
    for method in ("PATCH", "DELETE"):
        responses.add(method, API + "/rooms/1/attribute/id/text", status=204)
    responses.post(API + "/rooms/1/class/box", status=204)
    responses.delete(API + "/rooms/1/class/box", status=204)
    rest.set_attribute(1, "text", "readonly", "true", receiver_id=5)
    rest.remove_attribute(1, "text", "readonly")
    rest.add_class(1, "box", "dis-area", receiver_id=5)
    rest.remove_class(1, "box", "dis-area")
    bodies = [json.loads(c.request.body) for c in responses.calls]
    assert bodies == [
        {"attribute": "readonly", "value": "true", "receiver_id": 5},
        {"attribute": "readonly", "value": ""},  # Slurk requires `value` even for removal
        {"class": "dis-area", "receiver_id": 5},
        {"class": "dis-area"},
    ]


@responses.activate
def test_empty_task_and_permissions_are_none(rest):
    responses.get(API + "/users/1/task", json={})
    responses.get(API + "/users/1/permissions", json={})
    assert rest.get_user_task(1) is None and rest.get_user_permissions(1) is None


@responses.activate
def test_logs_are_sorted_by_id(rest):
    responses.get(API + "/logs", json=[{"id": 3}, {"id": 1}, {"id": 2}])
    assert [x["id"] for x in rest.get_logs(room_id=1, event="join")] == [1, 2, 3]
    assert "room_id=1" in responses.calls[0].request.url and "event=join" in responses.calls[0].request.url


# ----------------------------------------------------------------------------------------------------------------
# against the double (ETags off and on) and a real Slurk


def test_against_server(slurk_server):
    srv = slurk_server
    rest = SlurkREST(srv.url, srv.admin_token)
    layout = rest.create_layout({"title": "rest test", "html": [{"layout-type": "div", "id": "state"}]})
    room = rest.create_room(layout["id"])
    assert rest.get_room(room["id"])["layout_id"] == layout["id"]
    task = rest.create_task("rest test", 2, layout["id"])
    perms = rest.create_permissions(api=False, send_message=True)
    token = rest.create_token(perms["id"], room_id=room["id"], task_id=task["id"])
    user = rest.create_user("Rita", token["id"])
    assert rest.get_user_task(user["id"])["id"] == task["id"]
    assert [r["id"] for r in rest.get_user_rooms(user["id"])] == [room["id"]]

    # conditional writes (ETag from a fresh GET, or "*" when ETags are off)
    assert rest.patch_permissions(perms["id"], send_message=False)["send_message"] is False
    assert rest.patch_permissions(perms["id"], send_command=True)["send_command"] is True
    other = rest.create_room(layout["id"])
    rest.join_room(user["id"], other["id"])
    rest.leave_room(user["id"], room["id"])
    assert [r["id"] for r in rest.get_user_rooms(user["id"])] == [other["id"]]
    assert rest.update_room(other["id"], read_only=True)["read_only"] is True

    # room UI: broadcast works, an offline receiver is a 422, an unknown room a 404 with Slurk's message
    rest.set_text(other["id"], "state", "hello")
    with pytest.raises(SlurkAPIError) as offline:
        rest.set_text(other["id"], "state", "hello", receiver_id=user["id"])
    assert offline.value.status == 422
    with pytest.raises(SlurkAPIError) as unknown:
        rest.set_text(10 ** 6, "state", "x")
    assert unknown.value.status == 404 and f"Room `{10 ** 6}` does not exist" in unknown.value.message
    with pytest.raises(SlurkAPIError) as bad_user:
        rest.get_user(10 ** 6)
    assert bad_user.value.status == 404

    # logs
    rest.post_log("seat_map", other["id"], {"a": user["id"]}, receiver_id=user["id"])
    logs = rest.get_logs(room_id=other["id"], event="seat_map")
    assert logs[-1]["data"] == {"a": user["id"]} and logs[-1]["receiver_id"] == user["id"]
    events = [x["event"] for x in rest.get_logs(room_id=other["id"])]
    assert "set_text" in events


def test_write_with_a_non_api_token_is_401(slurk_server):
    srv = slurk_server
    admin = SlurkREST(srv.url, srv.admin_token)
    perms = admin.create_permissions(api=False, send_message=True)
    token = admin.create_token(perms["id"])
    weak = SlurkREST(srv.url, token["id"])
    with pytest.raises(SlurkAPIError) as err:
        weak.create_permissions(api=True)
    assert err.value.status == 401
    assert token["id"] not in str(err.value)


def test_proxies_from_the_environment_are_resolved_once(monkeypatch):
    """requests would read the whole environment on every call; the client resolves proxies once, still honouring
    HTTP(S)_PROXY and NO_PROXY as given when it was made."""
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    rest = SlurkREST("http://slurk.example:5000", "t")
    assert rest.session.trust_env is False
    assert rest.session.proxies.get("http") == "http://proxy.example:3128"
    monkeypatch.setenv("NO_PROXY", "slurk.example")
    assert "http" not in SlurkREST("http://slurk.example:5000", "t").session.proxies
