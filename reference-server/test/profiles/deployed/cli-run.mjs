#!/usr/bin/env node
/**
 * A stand-in for the deployed production CLI's `commonly agent run <name>` loop with its stub adapter. It
 * reproduces that driver's wire behaviour exactly as /work/shared/design/field-notes.md gives it — not our
 * CLI's code, which is more lenient — so a test can tell whether a kernel keeps it working:
 * - starts from COMMONLY_AGENT_TOKEN + COMMONLY_API_URL, no token file ("Env: …");
 * - polls `GET /events?agentName=…&instanceId=…&limit=10` with Bearer ("CLI: GET /events?agentName…");
 * - reads each event's `_id` (never `id`), handles events one at a time, re-acks an id it already handled
 *   without a turn ("Run loop");
 * - takes a turn only on the production names it knows (chat.mention, thread.mention, message.posted,
 *   dm.message, first_contact, heartbeat); any other type is acked without a turn;
 * - reads `GET /pods/:podId/messages?limit=10` before and after each turn, relying on `self` and `isBot`;
 * - calls `POST /api/agents/runtime/messages/:messageId/claim` and proceeds when the route is missing;
 * - stub adapter `(stub) received: …` (here it answers a heartbeat HEARTBEAT_OK, as a model told to would);
 *   empty, `NO_REPLY` and HEARTBEAT_OK-on-a-heartbeat replies are not posted;
 * - posts `{content}` only and parses `{success, message: {_id, …}}`; acks `{result: {outcome, reason?,
 *   details?}}` and parses `{success: true}`;
 * - three consecutive 401/403 on poll stop the loop.
 * One JSON line per step on stdout. The handled-id ring is in memory (the real one is a file of 500 ids).
 */
const base = `${process.env.COMMONLY_API_URL}/api/agents/runtime`;
const token = process.env.COMMONLY_AGENT_TOKEN;
const agentName = process.env.AGENT_NAME ?? "agent";
const instanceId = process.env.INSTANCE_ID ?? "default";
const pollMs = Number(process.env.POLL_MS ?? 200);
const KNOWN = new Set([
  "chat.mention",
  "thread.mention",
  "message.posted",
  "dm.message",
  "first_contact",
  "heartbeat",
]);

const log = (step, data = {}) => process.stdout.write(`${JSON.stringify({ step, ...data })}\n`);
const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };

async function call(method, path, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json };
}

async function readPod(podId) {
  const r = await call("GET", `/pods/${podId}/messages?limit=10`);
  return r.status === 200 && Array.isArray(r.json?.messages) ? r.json.messages : [];
}

function stubAdapter(prompt, isHeartbeat) {
  return isHeartbeat ? "HEARTBEAT_OK" : `(stub) received: ${prompt}`;
}

async function ack(id, result) {
  const r = await call("POST", `/events/${id}/ack`, { result });
  const ok = r.status >= 200 && r.status < 300 && r.json?.success === true;
  log(ok ? "acked" : "ack-unexpected", { id, outcome: result.outcome, status: r.status, answer: r.json });
  return ok;
}

async function turn(evt) {
  const isHeartbeat = evt.type === "heartbeat";
  const content = evt.payload?.content ?? "";
  const messageId = evt.payload?.messageId;
  const before = await readPod(evt.podId);
  const trigger = before.find((m) => (m._id ?? m.id) === messageId);
  if (trigger?.self === true) return ack(evt._id, { outcome: "no_action", reason: "own message" });
  log("context", {
    id: evt._id,
    messages: before.length,
    self: before.filter((m) => m.self === true).length,
    bots: before.filter((m) => m.isBot === true).length,
  });
  if (messageId) {
    const claim = await call("POST", `/messages/${messageId}/claim`);
    log("claim", { id: evt._id, status: claim.status });
    if (claim.status !== 404 && (claim.status < 200 || claim.status >= 300))
      return ack(evt._id, { outcome: "skipped", reason: "claimed elsewhere" });
  }
  const reply = stubAdapter(isHeartbeat ? "heartbeat" : content, isHeartbeat).trim();
  if (reply === "" || reply === "NO_REPLY" || (isHeartbeat && reply === "HEARTBEAT_OK")) {
    log("not-posted", { id: evt._id, type: evt.type, reply });
    return ack(evt._id, { outcome: "no_action", reason: reply || "empty" });
  }
  const posted = await call("POST", `/pods/${evt.podId}/messages`, { content: reply });
  const message = posted.json?.message;
  if (posted.status < 200 || posted.status >= 300 || posted.json?.success !== true || !message?._id) {
    log("post-unexpected", { id: evt._id, status: posted.status, answer: posted.json });
    throw new Error("post failed");
  }
  log("posted", { id: evt._id, type: evt.type, messageId: message._id, content: message.content });
  const after = await readPod(evt.podId);
  const mine = after.find((m) => (m._id ?? m.id) === message._id);
  log("after", { id: evt._id, found: mine !== undefined, self: mine?.self, isBot: mine?.isBot });
  return ack(evt._id, { outcome: "posted", details: { messageId: message._id } });
}

const handled = new Set();
let refusals = 0;
for (;;) {
  const q = new URLSearchParams({ agentName, instanceId, limit: "10" });
  let r;
  try {
    r = await call("GET", `/events?${q}`);
  } catch (err) {
    log("poll-failed", { error: String(err) });
    await new Promise((res) => setTimeout(res, pollMs));
    continue;
  }
  if (r.status === 401 || r.status === 403) {
    refusals++;
    log("poll-refused", { status: r.status, consecutive: refusals });
    if (refusals >= 3) {
      log("stopped", { hint: "the token was refused three times: detach and attach again" });
      process.exit(2);
    }
  } else refusals = 0;
  for (const evt of r.status === 200 ? (r.json?.events ?? []) : []) {
    log("event", { id: evt._id, type: evt.type, podId: evt.podId });
    if (handled.has(evt._id)) {
      await ack(evt._id, { outcome: "acknowledged", reason: "already handled" });
      continue;
    }
    try {
      if (KNOWN.has(evt.type)) await turn(evt);
      else await ack(evt._id, { outcome: "skipped", reason: `no turn for ${evt.type}` });
      handled.add(evt._id);
    } catch (err) {
      log("turn-failed", { id: evt._id, error: String(err) });
      break; // no ack; the rest of the batch waits (the retry circuit is out of scope here)
    }
  }
  await new Promise((res) => setTimeout(res, pollMs));
}
