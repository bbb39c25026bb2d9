/**
 * `cap-kernel demo`: the main job of the README quickstart. Serves the kernel on an SQLite file with a demo
 * pod, prints the URL, a human token and two agent tokens, runs an echo driver for agent "echo" — a real
 * CAP driver in its own process when `--driver` names one (the README quickstart runs the SDK's echo
 * example), else a minimal built-in one — and posts a first human message mentioning @echo so an event
 * visibly flows within seconds.
 *
 * Its own file (`.cap-kernel/demo.db`) starts clean on every run unless `--keep`: the tokens are new on every
 * start anyway, and an old pod would hand a reader's driver a backlog of events the quickstarts do not
 * mention. A database it reuses (`--keep`, or one named by --db / CAP_DB, which it never deletes) is named
 * on the first line with its open events. Human lines go to stdout, the kernel's JSON logs to stderr.
 */
import { spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { CAP_BASE_PATH } from "@commonly/cap-spec/constants";
import { startEchoDriver } from "../demo/echo-driver.js";
import type { Kernel } from "../kernel.js";
import { operatorCaller } from "../services/deps.js";
import { closeOnSignals, startServer } from "./serve.js";
import { DEMO_DB, type ServeFlags, sqliteFile } from "./settings.js";

/** Removes the demo's own file from an earlier run (never a database named by --db or CAP_DB). */
function startClean(): string | null {
  const file = sqliteFile(DEMO_DB)!;
  if (!existsSync(file)) return null;
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
  return `cap-kernel demo: starting clean (removed ${file} from an earlier run; pass --keep to reuse it)`;
}

/** The first line for a database that already held the demo pod: what a driver will be handed. */
async function reuseNote(k: Kernel, db: string, own: boolean): Promise<string | null> {
  if ((await k.operator.findPods("demo")).length === 0) return null;
  const stats = await k.health.queueStats();
  const open = Object.entries(stats)
    .filter(([state]) => state !== "acked" && state !== "failed")
    .reduce((n, [, count]) => n + count, 0);
  const where = sqliteFile(db) ?? db.replace(/\/\/[^@/]*@/, "//…@");
  const clean = own ? "run without --keep to start clean" : "name a new --db to start clean";
  return `cap-kernel demo: reusing ${where} (${open} open event${open === 1 ? "" : "s"} from an earlier run, delivered to the drivers first); ${clean}`;
}

/** Find-or-create the demo human, pod and agents; issue fresh tokens (tokens are shown once). */
export async function seedDemo(k: Kernel) {
  const existing = (await k.operator.liveUsers()).find((u) => u.name === "demo" && u.isAdmin);
  let token: string;
  let userId: string;
  if (existing) {
    userId = existing.id;
    token = (await k.users.issueToken(existing.id, "demo")).token;
  } else {
    const created = await k.users.createUser({ name: "demo", isAdmin: true, tokenLabel: "demo" });
    userId = created.user.id;
    token = created.token;
  }
  const who = operatorCaller({ id: userId, name: "demo" });
  const pod = (await k.operator.findPods("demo"))[0] ?? (await k.pods.createPod(userId, "demo"));
  const agents: Record<string, string> = {};
  for (const name of ["echo", "helper"]) {
    if (!(await k.registry.get(name)))
      await k.registry.publishAs(userId, true, { name, description: `demo agent ${name}` });
    if (!(await k.registry.findActiveInstallation(pod.id, name)))
      await k.registry.install(who, { agentName: name, podId: pod.id });
    agents[name] = (await k.registry.issueToken(who, pod.id, name, { label: "demo" })).token;
  }
  return { who, humanToken: token, podId: pod.id, echoToken: agents.echo!, helperToken: agents.helper! };
}

/** A driver process for agent echo; its output is prefixed so it reads apart from the kernel's. */
function startDriverProcess(command: string, url: string, token: string, say: (line: string) => void) {
  // Its own process group: the shell may not exec the command, and stopping must reach what it started.
  const child = spawn(command, {
    shell: true,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, CAP_URL: url, CAP_TOKEN: token },
  });
  const signalGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  const relay = (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) if (line.trim()) say(`[driver] ${line}`);
  };
  child.stdout.on("data", relay);
  child.stderr.on("data", relay);
  child.on("exit", (code, signal) => {
    if (signal !== "SIGTERM") say(`[driver] exited (${signal ?? `code ${code}`})`);
  });
  return {
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return signalGroup("SIGTERM");
      const exited = new Promise((resolve) => child.once("exit", resolve));
      signalGroup("SIGTERM");
      // A driver that ignores SIGTERM must not keep the demo from exiting.
      const kill = setTimeout(() => signalGroup("SIGKILL"), 5_000);
      await exited;
      clearTimeout(kill);
      // The shell may have gone first: what it started goes too.
      signalGroup("SIGTERM");
    },
  };
}

export async function demoCommand(flags: ServeFlags & { driver?: string; keep?: boolean }): Promise<void> {
  const named = flags.db ?? (process.env.CAP_DB || undefined);
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const cleaned = named === undefined && !flags.keep ? startClean() : null;
  const { app, url, settings } = await startServer(
    { ...flags, db: named ?? DEMO_DB, logLevel: flags.logLevel ?? process.env.CAP_LOG_LEVEL ?? "warn" },
    // Its own file is new on every clean start: the first line says that instead.
    { logTo: "stderr", ...(named === undefined ? { announceNewDb: false as const } : {}) },
  );
  const reused = await reuseNote(app.kernel, settings.db, named === undefined);
  if (cleaned) say(cleaned);
  if (reused) say(reused);
  const seed = await seedDemo(app.kernel);
  const driver = flags.driver
    ? startDriverProcess(flags.driver, url, seed.echoToken, say)
    : startEchoDriver({
        baseUrl: url,
        token: seed.echoToken,
        name: "echo",
        log: (l) => say(`[driver] ${l}`),
      });
  say(
    `cap-kernel demo is running at ${url}  (store ${app.kernel.health.storeKind}, profile ${settings.profile}; Ctrl-C to stop)`,
  );
  say("");
  say(`  pod id         ${seed.podId}`);
  say(`  human token    ${seed.humanToken}`);
  say(
    `  agent "echo"   ${seed.echoToken}   (answered by ${flags.driver ? "the driver process" : "the built-in echo driver"})`,
  );
  say(`  agent "helper" ${seed.helperToken}   (yours: drive it with any CAP driver)`);
  say("");
  say(`  dev console    ${url}/console/#token=${seed.humanToken}`);
  say(`  docs           ${url}/docs/`);
  say("");
  say("Talk to echo as the human:");
  say(
    `  curl -s -X POST ${url}/api/pods/${seed.podId}/messages -H 'authorization: Bearer ${seed.humanToken}' \\`,
  );
  say(`       -H 'content-type: application/json' -d '{"content":"hello @echo"}'`);
  say(`Stop a running turn: post "@echo sleep 60" the same way, then press Stop on its row in the console.`);
  say("Poll as helper (long-poll 25 s):");
  say(
    `  curl -s '${url}${CAP_BASE_PATH}/events?waitSeconds=25' -H 'authorization: Bearer ${seed.helperToken}'`,
  );
  say("");
  await app.kernel.messages.postAsHuman(seed.who, seed.podId, {
    content: "@echo welcome to the demo pod!",
  });
  await closeOnSignals(async () => {
    await driver.stop();
    await app.close();
    await app.kernel.close();
  });
}
