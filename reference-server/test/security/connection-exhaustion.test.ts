/**
 * Connection exhaustion against `cap-kernel serve` as a process (issue 30, finding 4: one client holding
 * ~20,000 silent sockets made every new connection fail — `/healthz` answered ECONNRESET). One client
 * (127.0.0.1) opens sockets and sends nothing; another (127.0.0.2) times 100 `GET /healthz` before, during
 * and after. The limits come in as CAP_* variables, as an operator would set them; the headers timeout is
 * raised so that no silent socket is closed while the test measures. Prints the latencies.
 */
import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/config.js";
import { startKernel, type TestKernel } from "../../src/testing/index.js";
import { describeLatency, type OpenSocket, openSocket, timeHealthz } from "./sockets.js";

const HOG = "127.0.0.1";
const OTHER = "127.0.0.2";
const WAVE = 500;

let k: TestKernel | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await k?.stop();
  k = undefined;
});

async function kernel(env: Record<string, string>) {
  k = await startKernel({ provision: false, env: { CAP_HEADERS_TIMEOUT_MS: "120000", ...env } });
  return Number(new URL(k.url).port);
}

/** Opens `n` sockets from the hog, `WAVE` at a time, without waiting to learn which are refused. */
async function flood(port: number, n: number): Promise<OpenSocket[]> {
  const all: OpenSocket[] = [];
  for (let i = 0; i < n; i += WAVE)
    all.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(WAVE, n - i) }, () => openSocket(port, HOG, sockets)),
      )),
    );
  return all;
}

/** Sorts the flood's sockets into refused (answered 429 and closed) and held (still open, silent). */
async function settle(all: OpenSocket[], expectHeld: number) {
  let closed = 0;
  for (const s of all) void s.closed.then(() => closed++);
  const deadline = performance.now() + 30_000;
  while (all.length - closed > expectHeld && performance.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  const refused = all.filter((s) => s.socket.destroyed);
  const answers = new Set(refused.map((s) => s.received().split("\r\n")[0]));
  return { held: all.length - refused.length, refused: refused.length, answers: [...answers] };
}

describe("one client exhausting connections", () => {
  it("holds 3,000 silent sockets of one client while another's /healthz is answered as before", async () => {
    const cap = 3000;
    const port = await kernel({ CAP_MAX_CONNECTIONS_PER_CLIENT: String(cap) });
    const before = await timeHealthz(port, OTHER, 100);
    const all = await flood(port, cap + 10);
    const { held, refused, answers } = await settle(all, cap);
    expect({ held, refused, answers }).toEqual({
      held: cap,
      refused: 10,
      answers: ["HTTP/1.1 429 Too Many Requests"],
    });
    const during = await timeHealthz(port, OTHER, 100);
    console.log(
      `/healthz from ${OTHER}: ${describeLatency(before)} before; ${describeLatency(during)} while ${HOG} holds ${cap} sockets`,
    );
    expect(during.statuses).toEqual({ 200: 100 });
    expect(during.p99).toBeLessThan(1000);
  }, 120_000);

  it(`holds a client attempting 20,000 connections to the default cap (${DEFAULT_CONFIG.limits.maxConnectionsPerClient}) while another's /healthz is answered`, async () => {
    const cap = DEFAULT_CONFIG.limits.maxConnectionsPerClient;
    const port = await kernel({});
    const before = await timeHealthz(port, OTHER, 100);
    const measuring = timeHealthz(port, OTHER, 100);
    const all = await flood(port, 20_000);
    const during = await measuring;
    const { held, refused, answers } = await settle(all, cap);
    expect({ held, refused, answers }).toEqual({
      held: cap,
      refused: 20_000 - cap,
      answers: ["HTTP/1.1 429 Too Many Requests"],
    });
    const after = await timeHealthz(port, OTHER, 100);
    console.log(
      `/healthz from ${OTHER}: ${describeLatency(before)} before; ${describeLatency(during)} while ${HOG} opened ` +
        `20,000 connections; ${describeLatency(after)} while it holds ${cap}`,
    );
    expect(during.statuses).toEqual({ 200: 100 });
    expect(after.statuses).toEqual({ 200: 100 });
    expect(after.p99).toBeLessThan(1000);
  }, 180_000);
});
