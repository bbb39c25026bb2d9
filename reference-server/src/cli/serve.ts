/**
 * `cap-kernel serve`: open the store, build the app, listen; on SIGTERM/SIGINT shut down gracefully
 * (long-polls released with [], in-flight requests finished, spans flushed, store closed) and exit 0.
 * OpenTelemetry tracing is on when the standard OTEL_* variables say so (src/tracing/settings.ts).
 * One format per stream: stdout carries only the kernel's JSON log lines (pino), for a log collector;
 * stderr carries only lines for a person (the banner, warnings, shutdown), each starting "cap-kernel:".
 */
import { readFileSync } from "node:fs";
import pino from "pino";
import { buildApp } from "../http/app.js";
import { loadTracing } from "../tracing/load.js";
import { announceNewDb, baseUrlFor, resolveServe, type ServeFlags } from "./settings.js";

/**
 * Descriptors kept free of client connections: the store (PostgreSQL pool, SQLite and its WAL), logs, and
 * refused connections while they are answered.
 */
const RESERVED_FILES = 256;

/** Why listen failed, in words that say what to do; null for errors without advice. */
function listenAdvice(err: NodeJS.ErrnoException, host: string, port: number): string | null {
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  const other = "choose another with --port N or CAP_PORT=N (--port 0 takes any free port)";
  if (err.code === "EADDRINUSE") return `${where} is already in use (another cap-kernel?); ${other}`;
  if (err.code === "EACCES")
    return `not allowed to listen on ${where} (ports below 1024 need privileges); ${other}`;
  if (err.code === "EADDRNOTAVAIL")
    return `cannot listen on ${where}: ${host} is not an address of this machine; choose another with --host or CAP_HOST`;
  return null;
}

export async function startServer(
  flags: ServeFlags,
  extra?: { logger?: false; logTo?: "stdout" | "stderr"; announceNewDb?: false },
) {
  const s = resolveServe(flags);
  if (extra?.announceNewDb !== false) announceNewDb(s);
  const tracing = await loadTracing();
  if (tracing) {
    for (const w of tracing.warnings) process.stderr.write(`cap-kernel: warning: ${w}\n`);
    process.stderr.write(`cap-kernel: ${tracing.description}\n`);
  }
  const app = await buildApp({
    db: s.db,
    config: { leaseSeconds: s.leaseSeconds, maxAttempts: s.maxAttempts, limits: s.limits },
    profile: s.profile,
    logger:
      extra?.logger === false
        ? false
        : { level: s.logLevel, stream: pino.destination(extra?.logTo === "stderr" ? 2 : 1) },
    ...(s.docsDir !== undefined ? { docsDir: s.docsDir } : {}),
    ...(s.accelerate ? {} : { accelerate: false }),
    ...(tracing ? { tracing } : {}),
  }).catch(async (err) => {
    await tracing?.shutdown();
    throw err;
  });
  // All clients together stay below the open-file limit, so a flood of connections from many addresses
  // cannot take the descriptors the store needs; Node closes a connection over this at once.
  const files = openFileLimit();
  const total = s.maxConnections ?? (files !== null ? Math.max(1, files - RESERVED_FILES) : undefined);
  if (total !== undefined) app.server.maxConnections = total;
  // A larger accept backlog so thousands of drivers (re)connecting at once are not refused.
  try {
    await app.listen({ port: s.port, host: s.host, backlog: 4096 });
  } catch (err) {
    await app.close();
    await app.kernel.close();
    const advice = listenAdvice(err as NodeJS.ErrnoException, s.host, s.port);
    throw advice ? new Error(advice) : err;
  }
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : s.port;
  return { app, settings: s, url: baseUrlFor(s.host, port) };
}

/** Close app then store once, on the first of the given signals; resolves when done. */
export function closeOnSignals(close: () => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    let closing = false;
    const onSignal = (signal: string) => {
      if (closing) return;
      closing = true;
      process.stderr.write(`cap-kernel: ${signal}, shutting down\n`);
      const force = setTimeout(() => process.exit(1), 30_000);
      force.unref();
      close()
        .catch((err) => process.stderr.write(`cap-kernel: error while closing: ${(err as Error).message}\n`))
        .finally(() => resolve());
    };
    process.once("SIGTERM", () => onSignal("SIGTERM"));
    process.once("SIGINT", () => onSignal("SIGINT"));
  });
}

/** The process's open-file limit (Node raises the soft limit to the hard one at start), null off Linux. */
function openFileLimit(): number | null {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const n = Number(line?.split(/\s+/)[3]);
    return Number.isFinite(n) ? n : null;
  } catch {
    return null;
  }
}

export async function serveCommand(flags: ServeFlags): Promise<void> {
  const { app, url, settings } = await startServer(flags);
  const files = openFileLimit();
  // Each open driver connection is a file descriptor: a low limit caps the waiting long-polls.
  if (files !== null && files < 10_240)
    process.stderr.write(
      `cap-kernel: warning: open-file limit is ${files}, so at most about ${files - 64} drivers can hold a connection; raise it (ulimit -n, systemd LimitNOFILE)\n`,
    );
  process.stderr.write(
    `cap-kernel: listening on ${url} (store ${app.kernel.health.storeKind}, lease ${settings.leaseSeconds}s, maxAttempts ${settings.maxAttempts}, profile ${settings.profile}${settings.accelerate ? "" : ", accelerators off"})\n`,
  );
  await closeOnSignals(async () => {
    await app.close();
    await app.kernel.close();
  });
}
