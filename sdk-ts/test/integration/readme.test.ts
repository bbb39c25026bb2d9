/**
 * The README's examples are code: each block marked `<!-- readme-example: NAME -->` is extracted,
 * type-checked (tsc --checkJs against the built package, imported by its published name) and run
 * verbatim against the real reference kernel.
 */
import { execFile, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import {
  eventually,
  type OtlpReceiver,
  startKernel,
  startOtlpReceiver,
  type TestKernel,
} from "@commonly/cap-kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const sdk = resolve(import.meta.dirname, "..", "..");
const tmp = join(sdk, "test", ".tmp");

function examples(): Map<string, string> {
  const readme = readFileSync(join(sdk, "README.md"), "utf8");
  const found = new Map<string, string>();
  for (const m of readme.matchAll(/<!-- readme-example: (\S+) -->\s*```js\n([\s\S]*?)```/g))
    found.set(m[1]!, m[2]!);
  return found;
}

let kernel: TestKernel;
let receiver: OtlpReceiver;
const blocks = examples();
beforeAll(async () => {
  mkdirSync(tmp, { recursive: true });
  for (const [name, code] of blocks) writeFileSync(join(tmp, name), code);
  kernel = await startKernel({ leaseSeconds: 1, agents: ["echo", "worker", "tracer"], listeners: ["echo"] });
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await kernel?.stop();
  await receiver?.close();
});

describe("README examples", () => {
  it("has the echo driver in at most 20 lines, the client example, the stop example and the tracing one", () => {
    expect([...blocks.keys()]).toEqual([
      "echo-driver.mjs",
      "client.mjs",
      "stop-driver.mjs",
      "traced-driver.mjs",
    ]);
    expect(blocks.get("echo-driver.mjs")!.trimEnd().split("\n").length).toBeLessThanOrEqual(20);
  });

  it("type-check against the built package", async () => {
    const tsc = join(sdk, "node_modules", "typescript", "bin", "tsc");
    const args = [tsc, "--noEmit", "--allowJs", "--checkJs", "--strict", "--skipLibCheck"];
    args.push(
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "--target",
      "es2022",
      "--types",
      "node",
    );
    const files = [...blocks.keys()].map((n) => join(tmp, n));
    const result = await promisify(execFile)(process.execPath, [...args, ...files], { cwd: sdk }).catch(
      (e) => e,
    );
    expect(`${result.stdout ?? ""}${result.stderr ?? ""}`).toBe("");
  });

  it("runs the echo driver verbatim: it answers an @mention and stops cleanly on SIGTERM", async () => {
    const child = spawn(process.execPath, [join(tmp, "echo-driver.mjs")], {
      env: { ...process.env, CAP_URL: kernel.url, CAP_TOKEN: kernel.agents.echo!.token },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => {
      stdout += c;
    });
    child.stderr.on("data", (c) => {
      stderr += c;
    });
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    try {
      const asked = await kernel.say("@echo hello from the README");
      const reply = await eventually(
        async () => (await kernel.messages()).find((m) => m.content === "echo: @echo hello from the README"),
        "the README driver's reply is in the pod",
      );
      expect(reply.replyToMessageId).toBe(asked);
      await eventually(() => /mention\.received evt_\S+ -> posted/.test(stdout), "the driver logs the ack");
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    expect(stdout).toMatch(/stopped \{[^}]*handled: 1/);
    expect(stderr).toBe("");
  });

  it("runs the stop example verbatim: a human's cancel stops its minute-long turn, which posts nothing and is acked cancelled", async () => {
    const child = spawn(process.execPath, [join(tmp, "stop-driver.mjs")], {
      env: { ...process.env, CAP_URL: kernel.url, CAP_TOKEN: kernel.agents.worker!.token },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => {
      stdout += c;
    });
    child.stderr.on("data", (c) => {
      stderr += c;
    });
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    try {
      const id = await kernel.emit("worker", "task.assigned", { taskId: "t1", title: "a long task" });
      await eventually(() => stdout.includes(`working on ${id}`), "the handler runs");
      await kernel.api.POST("/api/pods/{podId}/events/{eventId}/cancel", {
        params: { path: { podId: kernel.podId, eventId: id } },
        body: { reason: "not needed any more" },
      });
      await eventually(() => stdout.includes(`${id} -> cancelled`), "the driver acks the event cancelled");
      expect(stdout).toContain(`stopped ${id} (not needed any more)`);
      expect((await kernel.messages()).filter((m) => m.author.name === "worker")).toEqual([]);
      expect(await kernel.state("worker", id)).toMatchObject({ state: "cancelled" });
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    expect(stdout).toMatch(/stopped \{[^}]*cancelled: 1/);
    expect(stderr).toBe("");
  });

  it("runs the tracing example verbatim: the handler's span, child of the human's, reaches the collector", async () => {
    const child = spawn(process.execPath, [join(tmp, "traced-driver.mjs")], {
      env: {
        ...process.env,
        CAP_URL: kernel.url,
        CAP_TOKEN: kernel.agents.tracer!.token,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (c) => {
      stderr += c;
    });
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    const parent = "00f067aa0ba902b7";
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    try {
      const { data } = await kernel.api.POST("/api/pods/{podId}/messages", {
        params: { path: { podId: kernel.podId } },
        body: { content: "@tracer follow me" },
        headers: { traceparent: `00-${traceId}-${parent}-01` },
      });
      await kernel.replyTo(data!.id, "tracer");
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    expect(stderr).toBe("");
    // Exported by the shutdown at the latest.
    const spans = await receiver.waitForSpans((s) => s.some((x) => x.name === "invoke_agent echo"));
    expect(spans.find((x) => x.name === "invoke_agent echo")).toMatchObject({
      traceId,
      parentSpanId: parent,
      kind: "consumer",
      serviceName: "echo-driver",
    });
  });

  it("runs the client example verbatim", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [join(tmp, "client.mjs")], {
      env: { ...process.env, CAP_URL: kernel.url, CAP_TOKEN: kernel.agents.echo!.token },
    });
    expect(stdout).toContain("lease 1s, features: long-poll");
    expect(stdout).toContain("403 not_installed");
  });
});
