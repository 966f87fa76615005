"""``kairos serve``: a real server process on a loopback port, on both backends.

Every test talks HTTP to ``kairos serve`` started as a subprocess (and MCP
through the official SDK's streamable HTTP client), with keys issued the
way an operator issues them.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from kairos.access.keys import UNKNOWN_RELOAD_SECONDS
from kairos.client import Client
from kairos.errors import AccessDenied, BadInput
from kairos.http.api import ENDPOINTS
from kairos.memory import Memory


@dataclass
class Server:
    url: str
    proc: subprocess.Popen[str]
    keys: dict[str, str]
    home: Path
    db_url: str
    dream_id: str
    event_id: str

    def call(self, method: str, path: str, key: str | None = None, **kw: Any) -> httpx.Response:
        headers = dict(kw.pop("headers", {}))
        if key is not None:
            headers["Authorization"] = f"Bearer {self.keys.get(key, key)}"
        return httpx.request(method, self.url + path, headers=headers, timeout=30, **kw)

    def position(self) -> int:
        with Memory(str(self.home), self.db_url, read_only=True) as m:
            return m.engine.store.max_position()


def start(home: Path, db_url: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "kairos.cli", "--home", str(home), "--db",
                             db_url, "serve", "--port", "0"], stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.stderr is not None
    line = proc.stderr.readline()
    found = re.search(r"on (http://127\.0\.0\.1:\d+)", line)
    assert found, line
    url = found.group(1)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/health", timeout=2).status_code == 200:
                return proc, url
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError("the server did not answer")


def stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    return err


@pytest.fixture
def server(home: Path, db_url: str) -> Iterator[Server]:
    with Memory.init(str(home), db_url) as m:
        first = m.write("ada", "MEMORY.md", "Sam likes green tea", user="sam")
        m.write("ada", "MEMORY.md", "Sam likes green tea", user="sam")  # a dream merges these
        m.write("ada", "USER.md", "Sam lives in Oslo", user="sam")
        m.write("ada", "USER.md", "Sam moved to Bergen", user="sam")
        m.write("ada", "SOUL.md", "Ada is patient")
        m.write("ada", "MEMORY.md", "Kim plays chess", user="kim")
        m.write("bob", "MEMORY.md", "Sam asked bob about jazz", user="sam")
        outcome = m.dreams.dream("ada", "sam", force=True)
        assert outcome.dream_id is not None
        keys = {
            "admin": m.keys.create("admin", by="ops")[0],
            "agent": m.keys.create("agent", agent="ada", user="sam", by="ops")[0],
            "agent-any-user": m.keys.create("agent", agent="ada", by="ops")[0],
            "reviewer": m.keys.create("reviewer", agent="ada", by="ops")[0],
            "auditor": m.keys.create("auditor", by="ops")[0],
        }
        dream_id, event_id = outcome.dream_id, first.event_id
    proc, url = start(home, db_url)
    s = Server(url, proc, keys, home, db_url, dream_id, event_id)
    try:
        yield s
    finally:
        if proc.poll() is None:
            stop(proc)


# -- keys, roles, scopes ------------------------------------------------------------------
def request_for(s: Server, ep: Any) -> tuple[str, dict[str, Any]]:
    """A request each endpoint would accept from a key that may call it."""
    path = ep.path.replace("{agent}", "ada").replace("{dream_id}", s.dream_id)
    args: dict[str, Any] = {"user": "sam", "file": "MEMORY.md", "text": "Sam likes rooibos",
                            "q": "tea", "event_ids": [s.event_id], "reason": "r", "to": 0,
                            "old": 0, "new": 1}
    args = {k: v for k, v in args.items() if k in ep.params}
    if ep.method == "GET":
        return path, {"params": args}
    return path, {"json": args}


ALLOWED = {"agent": "agent", "agent-any-user": "agent", "reviewer": "reviewer",
           "auditor": "auditor", "admin": "admin"}


@pytest.mark.parametrize("role", sorted(ALLOWED))
def test_every_role_against_every_endpoint(server: Server, role: str) -> None:
    """A key outside an endpoint's roles gets 403 and nothing is written; a
    key inside gets past the check (its answer is the endpoint's own)."""
    for ep in ENDPOINTS:
        if ep.path == "/v1/verify" and role != "auditor":
            continue  # slow, and the same check as the others
        path, kw = request_for(server, ep)
        before = server.position() if ep.writes else None
        r = server.call(ep.method, path, role, **kw)
        allowed = ALLOWED[role] == "admin" or ALLOWED[role] in ep.roles
        if not allowed:
            assert r.status_code == 403, (role, ep.path, r.text)
            assert r.json()["error"]["code"] == "forbidden"
            if before is not None:
                assert server.position() == before, (role, ep.path)
        else:
            assert r.status_code not in (401, 403), (role, ep.path, r.text)
            assert r.status_code in (200, 400, 404), (role, ep.path, r.text)
            if r.status_code != 200:
                assert set(r.json()["error"]) == {"code", "message"}


def test_no_key_a_bad_key_a_revoked_and_an_expired_one_get_401(server: Server) -> None:
    path = "/v1/agents/ada/read"
    params = {"file": "MEMORY.md", "user": "sam"}
    assert server.call("GET", path, params=params).status_code == 401
    for bad in ("nonsense", "kk_000000000000_x", server.keys["agent"][:-2] + "xx",
                server.keys["agent"].replace("kk_", "kx_")):
        r = server.call("GET", path, bad, params=params)
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
    with Memory(str(server.home), server.db_url) as m:
        soon = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 2))
        short = m.keys.create("agent", agent="ada", by="ops", expires=soon)[0]
        doomed, record = m.keys.create("agent", agent="ada", by="ops")

        def works(key: str) -> bool:  # a key issued elsewhere works within a second
            deadline = time.monotonic() + 2
            while server.call("GET", path, key, params=params).status_code != 200:
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.1)
            return True

        assert works(doomed) and works(short)
        m.keys.revoke(record.key_id, by="ops", reason="leaked")
        revoked = m.audit.query(type="KeyRevoked")
        assert [e["actor"] for e in revoked] == ["ops"]
    deadline = time.monotonic() + 5  # the server notices within a second
    while server.call("GET", path, doomed, params=params).status_code == 200:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert server.call("GET", path, doomed, params=params).status_code == 401
    time.sleep(max(0.0, 2.5 - 0.0))
    assert server.call("GET", path, short, params=params).status_code == 401


def test_an_agent_key_reaches_its_agent_and_its_user_only(server: Server) -> None:
    ok = server.call("GET", "/v1/agents/ada/read", "agent",
                     params={"file": "MEMORY.md", "user": "sam"})
    assert ok.status_code == 200 and "Sam likes green tea\n" in ok.json()["content"]
    own = server.call("GET", "/v1/agents/ada/read", "agent", params={"file": "SOUL.md"})
    assert own.status_code == 200 and own.json()["content"] == "Ada is patient\n"
    before = server.position()
    for method, path, kw in (
            ("GET", "/v1/agents/ada/read", {"params": {"file": "MEMORY.md", "user": "kim"}}),
            ("GET", "/v1/agents/bob/read", {"params": {"file": "MEMORY.md", "user": "sam"}}),
            ("GET", "/v1/agents/ada/search", {"params": {"q": "chess", "user": "kim"}}),
            ("POST", "/v1/agents/ada/write", {"json": {"file": "MEMORY.md", "text": "x",
                                                       "user": "kim"}}),
            ("POST", "/v1/agents/bob/write", {"json": {"file": "MEMORY.md", "text": "x",
                                                       "user": "sam"}})):
        r = server.call(method, path, "agent", **kw)
        assert r.status_code == 403, (path, kw, r.text)
    assert server.position() == before
    # Without a user it searches the agent's own files only: never another pair's.
    found = server.call("GET", "/v1/agents/ada/search", "agent", params={"q": "chess"}).json()
    assert all("chess" not in hit["text"] for hit in found["results"])
    # A reviewer bound to ada sees ada's dreams only, whatever it asks for.
    assert server.call("GET", "/v1/dreams", "reviewer", params={"agent": "bob"}
                       ).status_code == 403
    dreams = server.call("GET", "/v1/dreams", "reviewer").json()["dreams"]
    assert dreams and {d["agent"] for d in dreams} == {"ada"}
    # A dream of another agent, an event that is no dream, no event at all:
    # one answer, so a scoped key learns nothing of other pairs.
    with Memory(str(server.home), server.db_url) as m:
        m.write("bob", "MEMORY.md", "Sam asked bob about jazz", user="sam")  # to merge
        bobs = m.dreams.dream("bob", "sam", force=True).dream_id
        kims = m.history("ada", user="kim")[-1]["event_id"]
    assert bobs is not None
    answers = {server.call("GET", f"/v1/dreams/{i}", "reviewer").text.replace(i, "ID")
               for i in (bobs, kims, "0" * 8 + "-0000-5000-8000-" + "0" * 12)}
    assert len(answers) == 1 and '"not_found"' in answers.pop()
    assert server.call("GET", f"/v1/dreams/{bobs}", "admin").status_code == 200
    # verify checks the whole home: not for a scoped key.
    scoped_auditor = None
    with Memory(str(server.home), server.db_url) as m:
        scoped_auditor = m.keys.create("auditor", agent="ada", by="ops")[0]
    # A key issued by another process counts once the server may look again
    # for an unknown one (at most every UNKNOWN_RELOAD_SECONDS): the calls
    # above may have loaded the keys a moment before this one was issued.
    time.sleep(UNKNOWN_RELOAD_SECONDS + 0.05)
    assert server.call("POST", "/v1/verify", scoped_auditor).status_code == 403


# -- writes -----------------------------------------------------------------------------------
def test_a_retried_write_with_an_idempotency_key_is_written_once(server: Server) -> None:
    body = {"file": "MEMORY.md", "text": "Sam started pottery", "user": "sam"}
    first = server.call("POST", "/v1/agents/ada/write", "agent", json=body,
                        headers={"Idempotency-Key": "req-77"})
    again = server.call("POST", "/v1/agents/ada/write", "agent", json=body,
                        headers={"Idempotency-Key": "req-77"})
    other = server.call("POST", "/v1/agents/ada/write", "agent", json=body,
                        headers={"Idempotency-Key": "req-78"})
    assert first.status_code == again.status_code == other.status_code == 200
    assert first.json()["event_id"] == again.json()["event_id"] != other.json()["event_id"]
    history = server.call("GET", "/v1/agents/ada/history", "agent", params={"user": "sam"})
    texts = [e["text"] for e in history.json()["events"]]
    assert texts.count("Sam started pottery") == 2  # req-77 once, req-78 once


def test_bad_input_is_refused_with_a_reason_and_changes_nothing(server: Server) -> None:
    before = server.position()
    cases = [
        ("POST", "/v1/agents/ada/write", {"content": b"{bad json"}, 400, "malformed_json"),
        ("POST", "/v1/agents/ada/write", {"content": b"[1, 2]"}, 400, "malformed_json"),
        ("POST", "/v1/agents/ada/write", {"content": b"x" * (2 << 20)}, 413, "body_too_large"),
        ("POST", "/v1/agents/ada/write", {"json": {"file": "MEMORY.md", "user": "sam"}}, 400,
         "bad_input"),
        ("POST", "/v1/agents/ada/write", {"json": {"file": "../../etc/passwd", "text": "x",
                                                   "user": "sam"}}, 400, "bad_input"),
        ("POST", "/v1/agents/ada/write", {"json": {"file": "NOTES.md", "text": "x",
                                                   "user": "sam"}}, 400, "bad_input"),
        ("POST", "/v1/agents/ada/write", {"json": {"file": "MEMORY.md", "text": 5,
                                                   "user": "sam"}}, 400, "bad_input"),
        ("POST", "/v1/agents/a%20b/write", {"json": {"file": "MEMORY.md", "text": "x"}}, 400,
         "bad_input"),
        ("POST", "/v1/agents/ada/retract", {"json": {"file": "MEMORY.md", "event_ids": "x",
                                                     "reason": "r", "user": "sam"}}, 400,
         "bad_input"),
        ("GET", "/v1/agents/ada/read", {"params": {"file": "MEMORY.md", "user": "sam",
                                                   "version": "two"}}, 400, "bad_input"),
        ("GET", "/v1/nowhere", {}, 404, "no_route"),
        ("DELETE", "/v1/agents/ada/write", {}, 405, "method_not_allowed"),
    ]
    for method, path, kw, status, code in cases:
        r = server.call(method, path, "admin", **kw)
        assert r.status_code == status, (path, kw.keys(), r.text)
        error = r.json()["error"]
        assert error["code"] == code and "\n" not in error["message"] and error["message"]
    assert server.position() == before


# -- the document, the service ----------------------------------------------------------------
def test_the_openapi_document_lists_every_route(server: Server) -> None:
    doc = server.call("GET", "/openapi.json").json()
    documented = {(path, method.upper()) for path, ops in doc["paths"].items() for method in ops}
    routed = {(ep.path, ep.method) for ep in ENDPOINTS}
    assert documented == routed | {("/health", "GET"), ("/ready", "GET"),
                                   ("/openapi.json", "GET"), ("/metrics", "GET")}
    for ep in ENDPOINTS:  # and each route answers where the document says
        path, kw = request_for(server, ep)
        assert server.call(ep.method, path, "admin", **kw).json().get("error", {}).get(
            "code") not in ("no_route", "method_not_allowed")
    assert server.call("GET", "/ready").json()["status"] == "ready"


def test_metrics_count_requests_writes_searches_and_pending_proposals(server: Server) -> None:
    def metric(text: str, name: str) -> float:
        found = re.search(rf"^{re.escape(name)} ([0-9.e+]+)$", text, re.M)
        assert found, name
        return float(found.group(1))

    before = server.call("GET", "/metrics").text
    assert metric(before, "kairos_pending_proposals") == 1.0  # the fixture's dream
    assert metric(before, "kairos_writes_total") == 0.0
    server.call("POST", "/v1/agents/ada/write", "agent",
                json={"file": "MEMORY.md", "text": "Sam collects Zanzibarstamps", "user": "sam"})
    server.call("GET", "/v1/agents/ada/search", "agent", params={"q": "stamps", "user": "sam"})
    server.call("GET", "/v1/agents/ada/read", "agent", params={"file": "MEMORY.md",
                                                               "user": "kim"})  # 403
    after = server.call("GET", "/metrics").text
    assert metric(after, "kairos_writes_total") == 1.0
    assert metric(after, "kairos_searches_total") == 1.0
    assert metric(after, 'kairos_http_requests_total{method="GET",'
                         'route="/v1/agents/{agent}/read",status="403"}') == 1.0
    assert metric(after, "kairos_log_lag_events") >= 0
    assert "Zanzibar" not in after and "ada" not in after  # templates, never ids or content


def test_shutdown_is_graceful_and_the_log_holds_no_memory_content(server: Server) -> None:
    import concurrent.futures

    secret = "Quetzalpistachio"

    def write(i: int) -> httpx.Response:
        return server.call("POST", "/v1/agents/ada/write", "agent", json={
            "file": "MEMORY.md", "text": f"{secret} note {i}", "user": "sam"})

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(write, range(24)))
    assert all(r.status_code == 200 for r in answers)
    server.call("GET", "/v1/agents/ada/search", "agent", params={"q": secret, "user": "sam"})
    err = stop(server.proc)
    assert server.proc.returncode == 0, err
    assert secret not in err and secret.lower() not in err
    logged = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert any(entry["route"] == "/v1/agents/{agent}/write" and entry["status"] == 200
               for entry in logged)
    with Memory(str(server.home), server.db_url) as m:
        acknowledged = {r.json()["event_id"] for r in answers}
        recorded = {e["event_id"] for e in m.history("ada", user="sam")}
        assert acknowledged <= recorded
        assert m.verify().problems == []


# -- the client, MCP ------------------------------------------------------------------------
def test_the_client_has_memorys_methods_for_what_its_key_allows(server: Server) -> None:
    with Client(server.url, server.keys["agent"]) as c:
        w = c.write("ada", "MEMORY.md", "Sam adopted a cat", user="sam", idempotency_key="k1")
        assert c.write("ada", "MEMORY.md", "Sam adopted a cat", user="sam",
                       idempotency_key="k1").event_id == w.event_id
        assert "Sam adopted a cat" in (c.read("ada", "MEMORY.md", user="sam").content or "")
        hits = c.search("ada", "cat", user="sam")["results"]
        assert hits[0]["text"] == "Sam adopted a cat"
        c.retract("ada", "MEMORY.md", [w.event_id], reason="wrong pair", user="sam")
        assert "cat" not in (c.read("ada", "MEMORY.md", user="sam").content or "")
        assert c.end_session("ada", "sam", notes="talked about tea").type == "SessionEnded"
        assert [t["function"]["name"] for t in c.tools("ada")][0].startswith("memory_")
        assert "Ada is patient" in json.dumps(c.context("ada", "sam"))
        with pytest.raises(AccessDenied, match="reaches user 'sam' only"):
            c.read("ada", "MEMORY.md", user="kim")
        with pytest.raises(AccessDenied):
            c.audit()
        with pytest.raises(BadInput):
            c.write("ada", "NOTES.md", "x", user="sam")
    with Client(server.url, server.keys["reviewer"]) as r:
        assert r.dreams(pending=True)[0]["dream_id"] == server.dream_id
        assert r.show_dream(server.dream_id)["agent"] == "ada"
        r.approve(server.dream_id)
        approvals = [e for e in Memory(str(server.home), server.db_url, read_only=True).audit.query(
            type="DreamApproved")]
        assert [e["actor"] for e in approvals] == [f"key-{server.keys['reviewer'].split('_')[1]}"]
    with Memory(str(server.home), server.db_url) as m:
        m.seal()  # an export bundle proves its events against a checkpoint
    with Client(server.url, server.keys["auditor"]) as a:
        assert any(e["type"] == "DreamApproved" for e in a.audit(agent="ada"))
        assert a.trace("ada", "sam", "MEMORY.md")
        assert a.export("ada", "sam")["files"]
        assert a.verify()["ok"] is True


def test_mcp_over_http_takes_the_scope_from_the_key(server: Server) -> None:
    import anyio
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def session(key: str, headers: dict[str, str] | None = None) -> list[Any]:
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}",
                                             **(headers or {})}, timeout=30)
        async with client, streamable_http_client(server.url + "/mcp", http_client=client) as (
                read, write, *_), ClientSession(read, write) as s:
            await s.initialize()
            tools = [t.name for t in (await s.list_tools()).tools]
            wrote = await s.call_tool("memory_write", {"file": "MEMORY.md",
                                                        "text": "Sam runs on Sundays"})
            read_back = await s.call_tool("memory_read", {"file": "MEMORY.md"})
            other = await s.call_tool("memory_read", {"file": "MEMORY.md", "user": "kim"})
            return [tools, wrote, read_back, other]

    tools, wrote, read_back, other = anyio.run(session, server.keys["agent"])
    assert "memory_search" in tools and not wrote.is_error
    assert "Sam runs on Sundays" in read_back.structured_content["content"]
    assert other.is_error or "Kim" not in json.dumps(other.structured_content)
    # A key not bound to a user names the session's user in a header.
    _, _, kim, _ = anyio.run(session, server.keys["agent-any-user"], {"X-Kairos-User": "kim"})
    assert "Kim plays chess" in kim.structured_content["content"]
    # No key, or a key of another role: refused before the transport.
    for key, status in (("nonsense", 401), (server.keys["auditor"], 403)):
        r = httpx.post(server.url + "/mcp", headers={"Authorization": f"Bearer {key}"},
                       json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=10)
        assert r.status_code == status


# -- CORS, limits -------------------------------------------------------------------------
def test_cors_is_off_by_default_and_request_heads_are_bounded(server: Server) -> None:
    preflight = {"Origin": "https://evil.example", "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "authorization"}
    r = server.call("OPTIONS", "/v1/agents/ada/write", headers=preflight)
    assert "access-control-allow-origin" not in r.headers
    r = server.call("GET", "/v1/agents/ada/read", "agent",
                    params={"file": "MEMORY.md", "user": "sam"},
                    headers={"Origin": "https://evil.example"})
    assert r.status_code == 200 and "access-control-allow-origin" not in r.headers
    before = server.position()
    r = server.call("POST", "/v1/agents/ada/write", "agent",
                    json={"file": "MEMORY.md", "text": "x", "user": "sam"},
                    headers={"X-Padding": "p" * 20_000})  # past the 16 KiB head limit
    assert r.status_code == 431 and r.json()["error"]["code"] == "headers_too_large"
    assert server.position() == before
    assert server.call("GET", "/health").status_code == 200  # the server goes on


def test_cors_and_the_body_limit_come_from_the_settings(home: Path, db_url: str) -> None:
    home.mkdir(parents=True)
    (home / "kairos.toml").write_text('[serve]\ncors_origins = ["https://app.example"]\n'
                                      "max_body = 2048\n", encoding="utf-8")
    with Memory.init(str(home), db_url) as m:
        key = m.keys.create("agent", agent="ada", by="ops")[0]
    proc, url = start(home, db_url)
    try:
        def preflight(origin: str) -> httpx.Response:
            return httpx.options(url + "/v1/agents/ada/write", headers={
                "Origin": origin, "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization,idempotency-key"})

        allowed = preflight("https://app.example")
        assert allowed.headers["access-control-allow-origin"] == "https://app.example"
        assert "idempotency-key" in allowed.headers["access-control-allow-headers"].lower()
        assert "access-control-allow-origin" not in preflight("https://evil.example").headers
        big = httpx.post(url + "/v1/agents/ada/write", headers={"Authorization": f"Bearer {key}"},
                         json={"file": "MEMORY.md", "text": "y" * 3000, "user": "sam"})
        assert big.status_code == 413 and big.json()["error"]["code"] == "body_too_large"
    finally:
        stop(proc)


@pytest.mark.parametrize("setting", ['cors_origins = "*"', 'cors_origins = ["*"]',
                                     'cors_origins = ["https://a.example/path"]',
                                     "max_body = 10", "max_body = true", "port = 80"])
def test_bad_serve_settings_are_one_line_errors(tmp_path: Path, setting: str) -> None:
    home = tmp_path / "h"
    home.mkdir()
    (home / "kairos.toml").write_text(f"[serve]\n{setting}\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "kairos.cli", "--home", str(home), "serve",
                          "--port", "0"], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert "[serve]" in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
