#!/usr/bin/env python3
"""A stand-in for the deployed production Python SDK (one stdlib file, the production example driver).

It reproduces that SDK's wire behaviour exactly as /work/shared/design/field-notes.md gives it, so a test
can tell whether a kernel keeps it working: `GET /events?limit=10`; reads `evt["_id"]`, `evt["podId"]`,
`evt["payload"]["content"]`; posts `{content, reply_to_message_id?, metadata?}` (snake case); acks with
`{result: {outcome, content?}}`; sends `User-Agent: commonly-sdk/0.1`; treats any 2xx JSON as success;
exits after three consecutive 401/403 on poll. It answers `chat.mention` / `thread.mention`, handles a
`heartbeat` without posting, and acks anything else as skipped. One JSON line per step on stdout.

Env: COMMONLY_API_URL + COMMONLY_AGENT_TOKEN (or CAP_URL + CAP_TOKEN, as `cap-kernel demo --driver` sets).
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request

BASE = (os.environ.get("COMMONLY_API_URL") or os.environ["CAP_URL"]) + "/api/agents/runtime"
TOKEN = os.environ.get("COMMONLY_AGENT_TOKEN") or os.environ["CAP_TOKEN"]
POLL_SECONDS = float(os.environ.get("POLL_SECONDS", "0.2"))


def log(step, **data):
    print(json.dumps({"step": step, **data}), flush=True)


def request(method, path, body=None):
    data = None if body is None else json.dumps(body).encode("utf-8")
    req = urllib.request.Request(BASE + path, data=data, method=method)
    req.add_header("Authorization", "Bearer " + TOKEN)
    req.add_header("User-Agent", "commonly-sdk/0.1")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return res.status, json.loads(res.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, None


def handle(evt):
    kind = evt["type"]
    if kind in ("chat.mention", "thread.mention"):
        content = evt["payload"]["content"]
        reply = "(py) received: " + content
        body = {"content": reply, "metadata": {"sdk": "commonly-sdk/0.1"}}
        if evt["payload"].get("messageId"):
            body["reply_to_message_id"] = evt["payload"]["messageId"]
        status, answer = request("POST", "/pods/%s/messages" % evt["podId"], body)
        if not 200 <= status < 300:
            raise RuntimeError("post answered %s" % status)
        log("posted", id=evt["_id"], type=kind, status=status, answer=answer)
        return {"outcome": "posted", "content": reply}
    if kind == "heartbeat":
        log("heartbeat", id=evt["_id"])
        return {"outcome": "no_action"}
    return {"outcome": "skipped"}


def main():
    refusals = 0
    while True:
        status, answer = request("GET", "/events?limit=10")
        if status in (401, 403):
            refusals += 1
            log("poll-refused", status=status, consecutive=refusals)
            if refusals >= 3:
                log("stopped")
                sys.exit(2)
        else:
            refusals = 0
        for evt in (answer or {}).get("events", []) if 200 <= status < 300 else []:
            log("event", id=evt["_id"], type=evt["type"], podId=evt["podId"])
            try:
                result = handle(evt)
            except Exception as err:  # the example driver logs and leaves the event for redelivery
                log("failed", id=evt["_id"], error=str(err))
                continue
            status_ack, ack = request("POST", "/events/%s/ack" % evt["_id"], {"result": result})
            log("acked", id=evt["_id"], outcome=result["outcome"], status=status_ack, answer=ack)
        time.sleep(POLL_SECONDS)


if __name__ == "__main__":
    main()
