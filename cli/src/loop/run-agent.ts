/**
 * The long-running loop of `commonly agent run`, on the SDK's runDriver: long-poll, one event at a
 * time (serialized per process, ADR-005), renewal of every lease it holds (the running turn and the
 * fetched events waiting for it), the handled-ids ring for duplicates, the ADR-005 retry circuit
 * after a failed turn — the failed event released to come back when the circuit's probe is due, on
 * kernels with `release` — a Ctrl+C that releases what it has not run, and, on kernels with `cancel`,
 * a cancelled turn stopped (its CLI's process group killed, nothing posted, acked `cancelled`). This module turns
 * runDriver's hooks into log lines and decides when to stop for good: a revoked or unknown token
 * ends the run at once with the detach hint (runDriver alone would wait for three refusals).
 *
 * Clock and sleep are injectable, so a test can run the loop in-process and watch a 15-minute
 * circuit without waiting for it. It never acks or posts itself; the pidfile and signals belong to
 * the command that calls it.
 */
import {
  CapClient,
  type CapClientOptions,
  CapHttpError,
  CapSdkError,
  type Clock,
  type DriverSummary,
  runDriver,
  type Sleep,
} from "@commonly/cap-sdk";
import type { CmdAdapterOptions } from "../adapters/cmd.js";
import type { Adapter } from "../adapters/types.js";
import { CliError, reattachHint } from "../errors.js";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../reply.js";
import { openEventRing } from "../state/event-ring.js";
import { agentPaths } from "../state/home.js";
import { createSessionStore } from "../state/sessions.js";
import { formatDuration } from "../ui/duration.js";
import { createTurnHandler } from "./handle-event.js";
import type { Reporter } from "./reporter.js";
import { ringHandledStore } from "./ring-store.js";

export interface RunAgentOptions {
  name: string;
  home: string;
  baseUrl: string;
  token: string;
  adapter: Adapter;
  adapterName: string;
  cmdOptions?: Partial<CmdAdapterOptions>;
  cwd: string;
  /** Environment of the wrapped CLI (the runtime token is never in it). */
  env: Record<string, string | undefined>;
  timeoutMs: number;
  report: Reporter;
  /** Stops the loop: polling ends, a running turn gets `shutdownTimeoutMs` to finish. */
  signal: AbortSignal;
  /** Kills a running CLI at once. */
  kill?: AbortSignal;
  /** After a cancel, the CLI's grace between SIGTERM and SIGKILL (default 5 s). */
  cancelGraceMs?: number;
  /** Post one "stopped" note after a cancel (the installation's `--stop-note`). */
  stopNote?: boolean;
  pollIntervalMs?: number;
  waitSeconds?: number;
  shutdownTimeoutMs?: number;
  clock?: Clock;
  sleep?: Sleep;
  /** For tests: replaces fetch in the CAP client. */
  fetch?: CapClientOptions["fetch"];
}

/** Renew a third into the lease: two more chances before it ends, even on a loaded machine. */
const RENEW_AT = 1 / 3;
/** How long a running turn may finish after a stop (Ctrl+C) before it is given up and released. */
export const STOP_GRACE_MS = 10_000;
/** After a cancel, how long the wrapped CLI has between SIGTERM and SIGKILL. */
export const CANCEL_GRACE_MS = 5000;

/**
 * How long runDriver waits for a turn to finish after a stop, and for a cancelled turn to settle: a
 * cancelled CLI gets its whole cancel grace (and a moment to report) before the ack goes out.
 */
export function shutdownGraceMs(cancelGraceMs: number): number {
  return Math.max(STOP_GRACE_MS, cancelGraceMs + 2000);
}

function isDeadToken(err: unknown): err is CapHttpError {
  return (
    err instanceof CapHttpError &&
    err.status === 401 &&
    (err.code === "token_revoked" || err.code === "token_unknown")
  );
}

function describeError(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: { code?: string } }).cause;
    return cause?.code ? `${err.message} (${cause.code})` : err.message;
  }
  return String(err);
}

export async function runAgent(o: RunAgentOptions): Promise<DriverSummary> {
  const { report } = o;
  const paths = agentPaths(o.home, o.name);
  const ring = await openEventRing(paths.events);
  const client = new CapClient({
    baseUrl: o.baseUrl,
    token: o.token,
    userAgent: `commonly-cli/${o.adapterName}`,
    ...(o.fetch ? { fetch: o.fetch } : {}),
  });
  const stop = new AbortController();
  const onOuterStop = () => stop.abort(o.signal.reason);
  if (o.signal.aborted) onOuterStop();
  else o.signal.addEventListener("abort", onOuterStop, { once: true });
  let deadToken: CapHttpError | undefined;

  let maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;
  try {
    const info = await client.info({ signal: stop.signal, retries: 0 });
    maxMessageBytes = Math.min(info.maxMessageBytes, DEFAULT_MAX_MESSAGE_BYTES);
  } catch (err) {
    if (isDeadToken(err)) deadToken = err;
    else if (err instanceof CapHttpError && err.status === 404) {
      // A kernel without /info: keep the defaults.
    } else if (!stop.signal.aborted) {
      report.say(
        "warn",
        "info_failed",
        `cannot reach the kernel at ${client.baseUrl}: ${describeError(err)}; retrying`,
        {
          error: err,
        },
      );
    }
  }

  const handle = createTurnHandler({
    adapter: o.adapter,
    adapterName: o.adapterName,
    ...(o.cmdOptions ? { cmdOptions: o.cmdOptions } : {}),
    sessions: createSessionStore(o.home, o.name),
    cwd: o.cwd,
    env: o.env,
    timeoutMs: o.timeoutMs,
    maxMessageBytes: () => maxMessageBytes,
    kill: o.kill ?? new AbortController().signal,
    cancelGraceMs: o.cancelGraceMs ?? CANCEL_GRACE_MS,
    stopNote: o.stopNote ?? false,
    report,
  });

  const handlerErrors = new Map<string, unknown>();
  let summary: DriverSummary | undefined;
  try {
    if (!deadToken) {
      report.say("info", "start", "polling for events (ctrl+c to stop)", {
        kernel: client.baseUrl,
        adapter: o.adapterName,
        timeoutMs: o.timeoutMs,
      });
      summary = await runDriver({
        client,
        handle,
        signal: stop.signal,
        store: ringHandledStore(ring),
        renewAt: RENEW_AT,
        agentKey: o.name,
        agentName: o.name,
        ...(o.pollIntervalMs !== undefined ? { pollIntervalMs: o.pollIntervalMs } : {}),
        ...(o.waitSeconds !== undefined ? { waitSeconds: o.waitSeconds } : {}),
        shutdownTimeoutMs: o.shutdownTimeoutMs ?? shutdownGraceMs(o.cancelGraceMs ?? CANCEL_GRACE_MS),
        ...(o.clock ? { clock: o.clock } : {}),
        ...(o.sleep ? { sleep: o.sleep } : {}),
        onAck({ event, result, duplicate }) {
          if (result.outcome === "cancelled" && !duplicate) {
            report.say("info", "acked_cancelled", `■ ${event.id} acked cancelled`, {
              eventId: event.id,
              outcome: result.outcome,
              reason: result.reason,
            });
          } else if (duplicate) {
            report.say("info", "duplicate", `↺ ${event.id} was handled before; re-acked without spawning`, {
              eventId: event.id,
              outcome: result.outcome,
            });
          } else {
            report.say("debug", "acked", `acked ${event.id} (${result.outcome})`, {
              eventId: event.id,
              outcome: result.outcome,
            });
          }
        },
        onError({ stage, error, event }) {
          if (stage === "handler" && event) handlerErrors.set(event.id, error);
          else
            report.say("warn", `${stage}_failed`, `${stage} failed: ${describeError(error)}`, {
              stage,
              eventId: event?.id,
              error,
            });
        },
        onCircuit({ failureClass, consecutive, open, delayMs, eventId }) {
          const error = handlerErrors.get(eventId);
          handlerErrors.delete(eventId);
          const state = open ? "circuit open" : "retry";
          report.say(
            "error",
            "turn_failed",
            `✗ turn failed (${failureClass}): ${describeError(error)} — ${eventId} not acked; ` +
              `${state}, next try in ${formatDuration(delayMs)} (failure ${consecutive})`,
            {
              failureClass,
              consecutive,
              eventId,
              nextDelayMs: delayMs,
              circuitOpen: open,
              adapterKind: (error as { kind?: string } | undefined)?.kind,
              error,
            },
          );
        },
        onPollError({ error, consecutive, delayMs }) {
          if (isDeadToken(error)) {
            deadToken = error;
            stop.abort(error);
            return;
          }
          report.say(
            "warn",
            "poll_failed",
            `poll failed: ${describeError(error)}; next poll in ${formatDuration(delayMs)}`,
            {
              consecutive,
              nextDelayMs: delayMs,
              error,
            },
          );
        },
        onRelease({ event, delaySeconds, reason, status }) {
          const when =
            status === "failed"
              ? "it used its last attempt and is now a dead letter"
              : delaySeconds > 0
                ? `back in ${formatDuration(delaySeconds * 1000)}`
                : "back at once";
          report.say("info", "released", `↩ released ${event.id} (${reason}); ${when}`, {
            eventId: event.id,
            attempts: event.attempts,
            delaySeconds,
            reason,
            status,
          });
        },
        onRenew({ event, leaseExpiresAt }) {
          report.say("debug", "renewed", `lease of ${event.id} renewed until ${leaseExpiresAt}`, {
            eventId: event.id,
            leaseExpiresAt,
          });
        },
        onCancel({ event, reason, requestedAt }) {
          const grace = formatDuration(o.cancelGraceMs ?? CANCEL_GRACE_MS);
          report.say(
            "warn",
            "cancelled",
            `■ ${event.id} was cancelled (${reason}): stopping the turn (SIGTERM, SIGKILL after ${grace})`,
            { eventId: event.id, reason, requestedAt: requestedAt ?? null, attempts: event.attempts },
          );
        },
        onLeaseLost({ event, error }) {
          report.say(
            "warn",
            "lease_lost",
            `lost the lease of ${event.id}; the turn is abandoned (not acked)`,
            {
              eventId: event.id,
              error,
            },
          );
        },
        onPollMode({ mode, reason }) {
          report.say(
            "debug",
            "poll_mode",
            `${mode === "long-poll" ? "long-polling" : "polling at the interval"} (${reason})`,
            {
              mode,
              reason,
            },
          );
        },
      });
    }
  } catch (err) {
    if (err instanceof CapSdkError && err.code === "auth_stopped") deadToken ??= err.cause as CapHttpError;
    else throw err;
  } finally {
    o.signal.removeEventListener("abort", onOuterStop);
  }
  if (deadToken) {
    const why = deadToken instanceof CapHttpError ? deadToken.code : "refused";
    const message = `the kernel no longer accepts this agent's token (${why}); ${reattachHint(o.name)}`;
    // Into the log file only: the command prints the error itself, once, on stderr.
    report.logger.error("token_revoked", { text: message, code: why });
    throw new CliError("token_revoked", message);
  }
  return summary!;
}
