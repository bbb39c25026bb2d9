/**
 * The dev console in headless Chromium against a real `cap-kernel` (spawned, SQLite) with an echo driver
 * running (a plain-fetch CAP loop below: this package must not depend on the SDK, whose tests depend on
 * the kernel, which serves this package): inject an event for a second agent, see it leased with a ticking lease
 * countdown when that agent polls, see it become a dead letter when the lease ends (max-attempts 1), requeue
 * it from the console; post as the human and see the echo's reply, and the echo's event acked. On a second
 * kernel (3 attempts): an event a driver released with a delay shows as pending with a ticking "in …"
 * countdown to its availableAt and the release reason, then "ready"; a released last attempt is a dead letter
 * listed with its reason.
 *
 * The console is loaded from the kernel's own `/console/` when the kernel serves it; until the kernel is
 * wired with registerConsoleAndDocs, from a local Fastify that serves the same files and forwards `/api/*`
 * to the kernel unchanged (same origin, as in production).
 */
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startKernel, type TestKernel } from "@commonly/cap-kernel/testing";
import Fastify, { type FastifyInstance } from "fastify";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerConsoleAndDocs } from "../../src/serve.js";
import { launchChromium } from "./chromium.js";

const resultsDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "test-results");

let kernel: TestKernel;
let front: FastifyInstance | null = null;
let base: string;
let browser: Browser;
let page: Page;
const driverStop = new AbortController();
let driverDone: Promise<unknown>;

/** `fetch` a CAP route as an agent; JSON in and out. */
async function cap(token: string, method: string, path: string, body?: unknown, signal?: AbortSignal) {
  const res = await fetch(`${kernel.url}/api/agents/runtime${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
    ...(signal ? { signal } : {}),
  });
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${await res.text()}`);
  return res.json();
}

/** The smallest echo driver: long-poll, answer human messages, ack everything, until aborted. */
async function echoDriver(token: string, signal: AbortSignal) {
  while (!signal.aborted) {
    const polled = await cap(token, "GET", "/events?limit=10&waitSeconds=2", undefined, signal).catch(
      () => null,
    );
    for (const e of polled?.events ?? []) {
      if (e.type === "message.posted") {
        const body = { content: `echo: ${e.payload.content}`, replyToMessageId: e.payload.messageId };
        await cap(token, "POST", `/pods/${e.podId}/messages`, body);
      }
      await cap(token, "POST", `/events/${e.id}/ack`, { result: { outcome: "posted" } });
    }
  }
}
const pageProblems: string[] = [];

/** A same-origin front for a kernel that does not serve /console yet: static console + /api/* forwarded. */
async function consoleFront(kernelUrl: string) {
  const app = Fastify();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
  await registerConsoleAndDocs(app, { docsDir: false });
  app.all("/api/*", async (req, reply) => {
    const headers: Record<string, string> = {};
    for (const h of ["authorization", "content-type", "accept"]) {
      const v = req.headers[h];
      if (typeof v === "string") headers[h] = v;
    }
    const res = await fetch(kernelUrl + req.url, {
      method: req.method,
      headers,
      ...(req.body ? { body: new Uint8Array(req.body as Buffer) } : {}),
    });
    reply.code(res.status).header("content-type", res.headers.get("content-type") ?? "application/json");
    return reply.send(Buffer.from(await res.arrayBuffer()));
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const addr = app.server.address();
  return { app, url: `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}` };
}

beforeAll(async () => {
  // A lease long enough for a loaded machine to render the leased state before it ends; one delivery only,
  // so the unacked injected event becomes a dead letter when its lease ends.
  kernel = await startKernel({ agents: ["echo", "worker"], leaseSeconds: 6, maxAttempts: 1 });
  driverDone = echoDriver(kernel.agents.echo!.token, driverStop.signal);
  const served = await fetch(`${kernel.url}/console/`);
  if (served.ok) {
    base = kernel.url;
  } else {
    const f = await consoleFront(kernel.url);
    front = f.app;
    base = f.url;
  }
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on("console", (m) => {
    if (m.type() === "error") pageProblems.push(`console error: ${m.text()}`);
  });
  page.on("pageerror", (e) => pageProblems.push(`uncaught: ${e.message}`));
  await page.route("**/*", (route) =>
    new URL(route.request().url()).hostname === "127.0.0.1" ? route.continue() : route.abort(),
  );
});

afterAll(async () => {
  driverStop.abort();
  await driverDone?.catch(() => undefined);
  await browser?.close();
  await front?.close();
  await kernel?.stop();
});

describe("the dev console against a real cap-kernel", () => {
  it("signs in with the human token from the URL fragment and forgets the fragment", async () => {
    await page.goto(`${base}/console/#token=${kernel.human.token}`);
    await page.waitForSelector(`#pod-select option[value="${kernel.podId}"]`, { state: "attached" });
    expect(new URL(page.url()).hash).toBe("");
    await expect.poll(() => page.locator("#whoami").textContent()).toContain(kernel.human.name);
    expect(await page.evaluate(() => localStorage.getItem("cap-console.token"))).toBe(kernel.human.token);
  });

  it("injects an event, shows its lease counting down, lists it as a dead letter and requeues it", async () => {
    await page.selectOption("#inject-agent", "worker/default");
    await page.fill("#inject-type", "task.assigned");
    await page.dispatchEvent("#inject-type", "change");
    expect(JSON.parse(await page.inputValue("#inject-payload"))).toMatchObject({ title: expect.any(String) });
    await page.click("#inject-form button[type=submit]");
    const row = page.locator('[data-agent="worker/default"] tr[data-event]', { hasText: "task.assigned" });
    await row.waitFor();
    const eventId = (await row.getAttribute("data-event"))!;
    await expect.poll(() => row.getAttribute("data-state")).toBe("pending");

    // The worker polls through CAP (not through the console): the console shows the lease.
    const { events } = await cap(kernel.agents.worker!.token, "GET", "/events?limit=10");
    expect(events.map((e: { id: string }) => e.id)).toEqual([eventId]);
    const leased = page.locator(`tr[data-event="${eventId}"][data-state="leased"]`);
    await leased.waitFor();
    const first = await leased.locator(".countdown").textContent();
    expect(first).toMatch(/^\d+\.\d s$/);
    await expect.poll(() => leased.locator(".countdown").textContent(), { timeout: 5_000 }).not.toBe(first);

    // max-attempts 1: when the lease ends unacked, the event is a dead letter.
    const dead = page.locator(`#dead-letters tr[data-dead="${eventId}"]`);
    await dead.waitFor({ timeout: 15_000 });
    await dead.locator("button.requeue").click();
    await page.locator(`tr[data-event="${eventId}"][data-state="pending"]`).waitFor();
    await dead.waitFor({ state: "detached" });
    const queue = await kernel.admin.get(`/api/admin/pods/${kernel.podId}/queue`);
    const ev = queue.agents
      .find((a: { agentName: string }) => a.agentName === "worker")
      .events.find((e: { id: string }) => e.id === eventId);
    expect(ev.state).toBe("pending");
  });

  it("posts as the human and shows the echo driver's reply", async () => {
    const text = `hello from the browser ${Date.now()}`;
    await page.fill("#post-content", text);
    await page.click("#post-form button[type=submit]");
    const reply = page.locator(".message.from-agent .content", { hasText: `echo: ${text}` });
    await reply.waitFor({ timeout: 20_000 });
    await page.locator(".message.from-human .content", { hasText: text }).waitFor();
    // The echo's message.posted event is acked in its queue, after one delivery.
    const acked = page.locator('[data-agent="echo/default"] tr[data-state="acked"]');
    await acked.first().waitFor({ timeout: 10_000 });
    expect(await acked.first().locator("td.attempts").textContent()).toBe("1");

    mkdirSync(resultsDir, { recursive: true });
    const shot = join(resultsDir, "console.png");
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`screenshot: ${shot}`);
  });

  it("shows a released event's delay counting down and its reason, and a released last attempt as a dead letter", async () => {
    const k2 = await startKernel({ agents: ["relay"], leaseSeconds: 30, maxAttempts: 2 });
    try {
      const served = await fetch(`${k2.url}/console/`);
      let origin = k2.url;
      let front2: FastifyInstance | null = null;
      if (!served.ok) {
        const f = await consoleFront(k2.url);
        front2 = f.app;
        origin = f.url;
      }
      const token = k2.agents.relay!.token;
      const release = async (id: string, attempts: number, delaySeconds: number, reason: string) => {
        const res = await fetch(`${k2.url}/api/agents/runtime/events/${id}/release`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ attempts, delaySeconds, reason }),
        });
        expect(res.status).toBe(200);
        return res.json();
      };
      const { id } = await k2.admin.post("/api/admin/events", {
        agentName: "relay",
        podId: k2.podId,
        type: "task.assigned",
        payload: { taskId: "r1", title: "release me" },
      });
      await page.goto(`${origin}/console/#token=${k2.human.token}`);
      await page.waitForSelector(`#pod-select option[value="${k2.podId}"]`, { state: "attached" });

      // Delivered, then given back for 6 s: pending, counting down, with the driver's reason.
      const first = await fetch(`${k2.url}/api/agents/runtime/events?limit=10`, {
        headers: { authorization: `Bearer ${token}` },
      }).then((r) => r.json());
      expect(first.events.map((e: { id: string }) => e.id)).toEqual([id]);
      expect(await release(id, 1, 6, "model provider answered 503")).toMatchObject({ status: "pending" });
      const row = page.locator(`tr[data-event="${id}"][data-state="pending"]`);
      await row.waitFor();
      // The view refreshes on its own period: under a loaded machine the first refresh can take over the
      // default second, while the 6 s delay leaves ample room.
      await expect.poll(() => row.getAttribute("data-delayed"), { timeout: 4_000 }).toBe("");
      const countdown = row.locator(".countdown.available");
      const shown = await countdown.textContent();
      expect(shown).toMatch(/^in \d+\.\d s$/);
      await expect.poll(() => countdown.textContent(), { timeout: 5_000 }).not.toBe(shown);
      expect(await row.locator(".release-reason").textContent()).toBe("model provider answered 503");
      await expect.poll(() => countdown.textContent(), { timeout: 15_000 }).toBe("ready");
      expect(await row.getAttribute("data-delayed")).toBeNull();

      // The second delivery is the last (max-attempts 2): releasing it makes a dead letter at once.
      const second = await fetch(`${k2.url}/api/agents/runtime/events?limit=10`, {
        headers: { authorization: `Bearer ${token}` },
      }).then((r) => r.json());
      expect(second.events.map((e: { id: string; attempts: number }) => [e.id, e.attempts])).toEqual([
        [id, 2],
      ]);
      expect(await release(id, 2, 0, "quota exhausted; giving up")).toMatchObject({ status: "failed" });
      const dead = page.locator(`#dead-letters tr[data-dead="${id}"]`);
      await dead.waitFor({ timeout: 15_000 });
      expect(await dead.locator(".release-reason").textContent()).toBe("quota exhausted; giving up");
      await page.locator(`tr[data-event="${id}"][data-state="failed"]`).waitFor();
      await front2?.close();
    } finally {
      await k2.stop();
    }
  });

  it("logged no console error and no uncaught exception", () => {
    expect(pageProblems).toEqual([]);
  });
});
