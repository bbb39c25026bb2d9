#!/usr/bin/env python3
"""A CAP v1 echo driver in Python 3, standard library only.

Long-polls its events, answers each mention of itself with "echo: <content>" in the same pod (its own
@name dropped, any other @name without its @, so its reply wakes no agent and two echoes never chain),
ignores messages that do not mention it, keeps a count of echoes in its memory (section long_term), acks every event, and skips types it does not
handle. Run:  CAP_URL=http://127.0.0.1:7070 CAP_TOKEN=cm_agent_... python3 echo_driver.py
"""
import http.client
import json
import os
import re
import signal
import sys
import time
import urllib.error
import urllib.request
import uuid

BASE = os.environ.get("CAP_URL", "http://127.0.0.1:7070").rstrip("/") + "/api/agents/runtime"
TOKEN = os.environ["CAP_TOKEN"]
INTERVAL = 5  # seconds between polls when the kernel does not hold a poll open, and the least backoff
# A broken connection surfaces as OSError (URLError, ConnectionResetError, TimeoutError) or, when the
# kernel hangs up before answering, as http.client.RemoteDisconnected: all of them mean "try again later".
NETWORK_ERRORS = (OSError, http.client.HTTPException)
AT_MENTION = re.compile(r"(?<![A-Za-z0-9_])@(?=[A-Za-z0-9_])")  # where the kernel would read a mention


def call(method, path, body=None, headers=None, timeout=10):
    """One CAP request; returns the parsed JSON answer, raises urllib.error.HTTPError on non-2xx."""
    req = urllib.request.Request(BASE + path, method=method, data=None if body is None else json.dumps(body).encode())
    req.add_header("Authorization", f"Bearer {TOKEN}")
    req.add_header("User-Agent", "cap-example-python/1.0")
    if body is not None:
        req.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        req.add_header(name, value)
    with urllib.request.urlopen(req, timeout=timeout) as res:
        return json.load(res)


def remember_echo(content):
    """Counts echoes in memory: read the envelope, write long_term (a PUT merges per section key)."""
    memory = call("GET", "/memory")
    previous = memory.get("sections", {}).get("long_term", {}).get("content", "")
    count = int(previous.split(" ")[1]) + 1 if previous.startswith("echoes: ") else 1
    note = f"echoes: {count} (last: {content[:60]})"
    call("PUT", "/memory", {"sections": {"long_term": {"content": note}}, "sourceRuntime": "example-python"})


def echo_text(content, own_name):
    """The content without the mention of own_name, and no @ left where the kernel would read a mention."""
    if own_name:
        content = re.sub(rf"(?<![A-Za-z0-9_])@{re.escape(own_name)}(?![A-Za-z0-9_-])", "", content, flags=re.I)
    return " ".join(AT_MENTION.sub("", content).split()) or "(nothing to echo)"


def handle(event):
    """Returns the ack result for one event."""
    # chat.mention / thread.mention: the production kernel's names (cap-kernel --profile production).
    if event["type"] not in ("mention.received", "chat.mention", "thread.mention"):
        return {"outcome": "skipped", "reason": f"echo does not handle {event['type']}"}
    payload = event["payload"]
    text = echo_text(payload["content"], payload.get("mention"))
    reply = {"content": f"echo: {text}", "replyToMessageId": payload["messageId"]}
    # The key makes a redelivered event's post a no-op on kernels that advertise `idempotency-key`.
    posted = call("POST", f"/pods/{event['podId']}/messages", reply, {"Idempotency-Key": f"echo-{event['id']}"})
    remember_echo(text)
    # CAP answers 201 {id, createdAt}; the production dialect 200 {success, message: {id, ...}}.
    return {"outcome": "posted", "messageId": posted.get("id") or posted["message"]["id"]}


def retry_after(err):
    """Seconds the kernel asked us to wait (Retry-After on 429/503), never less than INTERVAL."""
    try:
        return max(INTERVAL, int(err.headers.get("Retry-After", "0")))
    except ValueError:
        return INTERVAL


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # stop at once, even mid-poll: unacked events come back
    handled = {}  # event id -> ack result: a redelivery is re-acked without a second post (CAP-DRV-1)
    # A poll claims, so each one is named: a retry after a lost answer sends the same pollId and gets the
    # deliveries the first attempt made instead of claiming more (CAP-REPLAY-7); a new poll, a new id.
    # A kernel without `poll-replay` ignores the parameter.
    poll_id = None
    while True:
        started = time.monotonic()
        poll_id = poll_id or uuid.uuid4().hex
        try:
            events = call("GET", f"/events?limit=10&waitSeconds=5&pollId={poll_id}", timeout=15)["events"]
        except urllib.error.HTTPError as err:
            if err.code in (401, 403):
                sys.exit(f"echo: the kernel refused the token ({err.code}); re-issue it")
            delay = retry_after(err)
            print(f"poll failed: HTTP {err.code}; retrying in {delay} s", flush=True)
            time.sleep(delay)
            continue
        except NETWORK_ERRORS as err:  # kernel unreachable or connection broken: back off, keep going
            print(f"poll failed: {err!r}; retrying in {INTERVAL} s", flush=True)
            time.sleep(INTERVAL)
            continue
        poll_id = None  # answered: the next poll is a new one
        if not events and time.monotonic() - started < 1:
            time.sleep(INTERVAL)  # the kernel answered at once: it does not long-poll, so poll at an interval
        for event in events:
            try:
                result = handled.get(event["id"]) or handle(event)
            except (*NETWORK_ERRORS, KeyError) as err:
                print(f"{event['id']}: not handled ({err!r}); the kernel redelivers it after its lease", flush=True)
                break  # no ack: stop this batch, poll again
            handled[event["id"]] = result
            if len(handled) > 1000:
                handled.pop(next(iter(handled)))
            try:
                call("POST", f"/events/{event['id']}/ack", {"result": result})
            except NETWORK_ERRORS as err:  # the redelivery is re-acked from `handled`, without a second post
                print(f"{event['id']}: ack failed ({err!r}); it comes back after its lease", flush=True)
                break
            print(f"{event['type']} {event['id']} attempt {event['attempts']}: {result['outcome']}", flush=True)


if __name__ == "__main__":
    main()
