/**
 * Making events and finding them again. A trigger makes the kernel enqueue an event for one fixture agent
 * that carries a fresh nonce — through the protocol (another agent of the shared pod posts a message
 * mentioning it) or through `--trigger-cmd`. `collect` polls to a deadline for the events a check is
 * about and acks everything else (leftovers of earlier checks or runs), so checks never see each other's
 * events. Nothing here judges the behaviour a check is about: these are setup steps, and a kernel answer
 * they cannot use is reported under the requirement that defines it (a poll's CAP-EVT-1, a post's
 * CAP-MSG-1), never under the check's own; what CAP cannot reach (a trigger command, the fixture's human)
 * makes the check incomplete, as "setup failed: …".
 */
import { spawn } from "node:child_process";
import { demands, type Role, type WireEvent } from "./agents.js";
import type { CheckContext } from "./context.js";
import { shellQuote } from "./http/curl.js";
import type { Answer } from "./http/exchange.js";
import { now, pause, pollInterval } from "./timing.js";

export const carries = (e: WireEvent, nonce: string) => JSON.stringify(e).includes(nonce);

/** The events of a poll answer; an answer that is not a poll result fails the setup step (CAP-EVT-1). */
export function eventsOf(ctx: CheckContext, answer: Answer<{ events: WireEvent[] }>): WireEvent[] {
  ctx.setupAnswer(answer, demands.poll, "polling for events");
  return (answer.body as { events: WireEvent[] }).events;
}

/**
 * Make the kernel enqueue an event for `target` carrying `nonce`. Returns the id of the message that
 * mentioned the target (protocol triggers only).
 */
export async function trigger(ctx: CheckContext, target: Role, nonce: string): Promise<string | undefined> {
  const cmd = ctx.run.settings.triggerCmd;
  const agent = ctx.cast[target];
  if (cmd) {
    await runTrigger(ctx, cmd, target, nonce);
    return undefined;
  }
  if (target === "c")
    ctx.incomplete(
      "setup failed: no fixture agent shares a pod with agent c; events for c need --trigger-cmd",
    );
  const author = ctx.as(target === "a" ? "b" : "a");
  const link = ctx.canaryUrl("trigger");
  const res = await author.post(ctx.cast.shared, {
    content: `@${agent.name} conformance nonce ${nonce} — see ${link}`,
    metadata: { kind: "conformance", nonce, link, webhookUrl: link },
  });
  // Only the event matters here, so any 2xx will do; the exact 201 {id, createdAt} is CAP-MSG-1's checks'.
  const step = `posting a mention of ${agent.name} to make an event`;
  if (res.status < 200 || res.status >= 300) ctx.setupAnswer(res, demands.post, step);
  const id = (res.body as { id?: unknown } | undefined)?.id;
  return typeof id === "string" ? id : undefined;
}

function runTrigger(ctx: CheckContext, cmd: string, target: Role, nonce: string): Promise<void> {
  const agent = ctx.cast[target];
  const vars: Record<string, string> = {
    agent: agent.name,
    instance: agent.instanceId ?? "",
    nonce,
    pod: agent.pods.includes(ctx.cast.shared) ? ctx.cast.shared : (agent.pods[0] ?? ""),
    url: ctx.run.settings.urls[0] ?? "",
  };
  const line = cmd.replace(/\{(agent|instance|nonce|pod|url)\}/g, (_, k: string) =>
    shellQuote(vars[k] ?? ""),
  );
  const env = { ...process.env };
  for (const [k, v] of Object.entries(vars)) env[`CAP_${k.toUpperCase()}`] = v;
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", line], { env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => {
      err += String(d);
    });
    child.on("error", (e) => reject(e));
    child.on("exit", (code) => {
      if (code === 0) resolve();
      else
        try {
          ctx.incomplete(`setup failed: --trigger-cmd exited with ${code}: ${err.trim().slice(0, 300)}`);
        } catch (e) {
          reject(e);
        }
    });
  });
}

export interface CollectOptions {
  match: (e: WireEvent) => boolean;
  /** Stop as soon as this many matching events were seen. */
  count: number;
  /** Monotonic instant (ms) after which to give up. */
  deadline: number;
  limit?: number;
  /** Also called for every poll answer, matching or not. */
  onPoll?: (answer: Answer<{ events: WireEvent[] }>, at: number) => void;
}

/** Poll as `role` until `count` matching events arrived or the deadline passed; ack every other event. */
export async function collect(ctx: CheckContext, role: Role, o: CollectOptions): Promise<WireEvent[]> {
  const api = ctx.as(role);
  const found: WireEvent[] = [];
  for (;;) {
    const res = await api.poll({ limit: o.limit ?? 50 });
    const at = now();
    o.onPoll?.(res, at);
    for (const e of eventsOf(ctx, res)) {
      if (o.match(e)) {
        // Assertions about the first matching event point at the poll that delivered it.
        if (found.push(e) === 1) ctx.about(res);
      } else
        await api.ack(e.id, {
          result: { outcome: "skipped", reason: "conformance: not this check's event" },
        });
    }
    if (found.length >= o.count || at >= o.deadline) return found;
    await pause(pollInterval(ctx.timing));
  }
}

/** Poll and ack until the queue answers empty (or `budgetMs` runs out). Returns how many were drained. */
export async function drain(ctx: CheckContext, role: Role, budgetMs = 60_000): Promise<number> {
  const api = ctx.as(role);
  const stop = now() + budgetMs;
  let n = 0;
  while (now() < stop) {
    const events = eventsOf(ctx, await api.poll({ limit: 50 }));
    if (events.length === 0) return n;
    for (const e of events)
      await api.ack(e.id, { result: { outcome: "skipped", reason: "conformance: drain" } });
    n += events.length;
  }
  return n;
}

/**
 * Post into a pod as the fixture's human. Humans live outside CAP, so this uses the kernel-specific
 * route the fixture names (`human.postPath`); without one, checks about humans cannot run.
 */
export async function humanPost(
  ctx: CheckContext,
  podId: string,
  body: { content: string; replyToMessageId?: string },
): Promise<string> {
  const human = ctx.run.settings.fixture.human;
  if (!human) ctx.incomplete("setup failed: the fixture has no human (human.token) to post as");
  const res = await ctx.send({
    method: "POST",
    path: human.postPath.replace("{podId}", encodeURIComponent(podId)),
    body,
    token: human.token,
    as: "human",
  });
  const id = (res.body as { id?: unknown; message?: { id?: unknown } } | undefined)?.id;
  if (res.status < 200 || res.status >= 300 || typeof id !== "string")
    ctx.incomplete(
      `setup failed: posting as the fixture's human (${human.postPath}, outside CAP) answered HTTP ${res.status} ${res.exchange.responseBody.slice(0, 200)}`,
    );
  return id;
}
