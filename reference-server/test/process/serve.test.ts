/**
 * `cap-kernel serve` as a process: settings from flags and CAP_* variables (flags win), the CLI provisioning
 * the same SQLite file with no server running, and graceful shutdown on SIGTERM releasing a long-poll.
 */
import { mkdtempSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { api, cli, startKernel } from "../helpers/process.js";

function openSocket(port: number, host: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, host, () => resolve(s));
    s.once("error", reject);
    s.on("data", () => {});
  });
}

describe("cap-kernel serve", () => {
  it("serves a provisioned file, takes flags over CAP_* variables, and shuts down gracefully on SIGTERM", async () => {
    const db = `sqlite:${join(mkdtempSync(join(tmpdir(), "cap-serve-")), "k.db")}`;
    const fixture = JSON.parse(
      await cli(["provision", "--for-conformance", "--db", db, "--base-url", "http://x"]),
    );
    expect(fixture.agents).toHaveLength(3);
    const k = await startKernel(["--db", db, "--lease-seconds", "9"], {
      CAP_LEASE_SECONDS: "7",
      CAP_MAX_ATTEMPTS: "4",
    });
    try {
      const info = await api(`${k.url}/api/agents/runtime/info`, fixture.agents[0].token);
      expect(info.json).toMatchObject({ leaseSeconds: 9, maxAttempts: 4 });
      expect((await api(`${k.url}/readyz`, null)).json).toEqual({
        ok: true,
        store: "sqlite",
        profile: "cap",
      });
      const waiting = api(`${k.url}/api/agents/runtime/events?waitSeconds=25`, fixture.agents[1].token);
      for (let i = 0; i < 200; i++) {
        const m = await fetch(`${k.url}/metrics`).then((r) => r.text());
        if (/cap_long_polls_waiting 1/.test(m)) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      const t0 = Date.now();
      k.proc.kill("SIGTERM");
      const res = await waiting;
      expect([res.status, res.json]).toEqual([200, { events: [] }]);
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(await k.exited).toBe(0);
    } finally {
      k.proc.kill("SIGKILL");
    }
  });

  it("reads an over-limit JSON body to its end before its 413, so the sender gets the answer, not a reset", async () => {
    // A kernel in its own process, as a driver meets it: answered before the body was read, the
    // connection closed under a client still sending, which saw EPIPE or a reset about 1 time in 20.
    const db = `sqlite:${join(mkdtempSync(join(tmpdir(), "cap-serve-")), "k.db")}`;
    const fixture = JSON.parse(
      await cli(["provision", "--for-conformance", "--db", db, "--base-url", "http://x"]),
    );
    const k = await startKernel(["--db", db]);
    try {
      const body = JSON.stringify({ sections: { soul: { content: "x".repeat(1024 * 1024 + 1024) } } });
      const answers: unknown[] = [];
      for (let i = 0; i < 60; i++) {
        try {
          const res = await fetch(`${k.url}/api/agents/runtime/memory`, {
            method: "PUT",
            headers: {
              authorization: `Bearer ${fixture.agents[0].token}`,
              "content-type": "application/json",
            },
            body,
          });
          answers.push([res.status, ((await res.json()) as { code?: string }).code]);
        } catch (err) {
          answers.push(String((err as { cause?: { code?: string } }).cause?.code ?? err));
        }
      }
      expect(answers).toEqual(Array.from({ length: 60 }, () => [413, "body_too_large"]));
    } finally {
      k.proc.kill("SIGKILL");
    }
  });

  it("exits 0 on SIGTERM although clients hold open connections with no request, or an abandoned long-poll", async () => {
    const db = `sqlite:${join(mkdtempSync(join(tmpdir(), "cap-serve-")), "k.db")}`;
    const fixture = JSON.parse(
      await cli(["provision", "--for-conformance", "--db", db, "--base-url", "http://x"]),
    );
    const k = await startKernel(["--db", db]);
    const { port, hostname } = new URL(k.url);
    const sockets: Socket[] = [];
    try {
      // A connection that never sends a request, and one whose long-poll is abandoned mid-wait but kept open.
      sockets.push(await openSocket(Number(port), hostname));
      const abandoned = await openSocket(Number(port), hostname);
      sockets.push(abandoned);
      abandoned.write(
        `GET /api/agents/runtime/events?waitSeconds=25 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${fixture.agents[0].token}\r\n\r\n`,
      );
      for (let i = 0; i < 200; i++) {
        const m = await fetch(`${k.url}/metrics`).then((r) => r.text());
        if (/cap_long_polls_waiting 1/.test(m)) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      k.proc.kill("SIGTERM");
      // Before the fix the kernel waited on these sockets until its 30 s forced exit, with code 1.
      expect(await k.exited).toBe(0);
    } finally {
      for (const s of sockets) s.destroy();
      k.proc.kill("SIGKILL");
    }
  }, 60_000);

  it("refuses bad settings at start", async () => {
    await expect(startKernel(["--db", "sqlite::memory:", "--max-attempts", "zero"])).rejects.toThrow(
      /--max-attempts must be an integer/,
    );
    await expect(startKernel(["--db", "mysql://nope"])).rejects.toThrow(/unsupported --db URL/);
  });

  it("says in its banner when it runs without accelerators, by flag or by CAP_ACCELERATE=0", async () => {
    for (const [args, env] of [
      [["--no-accelerate"], {}],
      [[], { CAP_ACCELERATE: "0" }],
      [[], { CAP_ACCELERATE: "1" }],
    ] as const) {
      const k = await startKernel(["--db", "sqlite::memory:", ...args], env);
      try {
        const off = args.length > 0 || env.CAP_ACCELERATE === "0";
        expect({ args, env, off: k.stderr().includes("accelerators off") }).toEqual({ args, env, off });
        expect((await fetch(`${k.url}/readyz`)).status).toBe(200);
      } finally {
        k.proc.kill("SIGTERM");
        await k.exited;
      }
    }
  });
});
