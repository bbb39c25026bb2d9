/**
 * Timers and signals that work in every runtime with `setTimeout` and `AbortController` (no
 * `AbortSignal.any`, which older browsers and Node 20.0–20.2 lack). Never import Node built-ins.
 */

/** Milliseconds since the epoch. Injected into the driver so tests can move time. */
export type Clock = () => number;

/** Waits `ms`, or less when `signal` aborts. Never rejects. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realClock: Clock = () => Date.now();

export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted || ms <= 0) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });

/** A controller that aborts when any of `signals` does; `dispose` detaches it from them. */
export function linkSignals(...signals: Array<AbortSignal | undefined>): {
  controller: AbortController;
  dispose: () => void;
} {
  const controller = new AbortController();
  const cleanups: Array<() => void> = [];
  for (const signal of signals) {
    if (!signal) continue;
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    cleanups.push(() => signal.removeEventListener("abort", onAbort));
  }
  return {
    controller,
    dispose: () => {
      for (const cleanup of cleanups) cleanup();
    },
  };
}

/** FNV-1a, 32 bits: a stable, non-cryptographic hash for spreading agents' delays. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A stable fraction in [0, 0.2) for `key`: the per-agent delay offset, so agents that fail together retry apart. */
export function stableJitter(key: string): number {
  // FNV-1a barely moves its high bits when only the last characters differ (agent-1, agent-2):
  // finish with murmur3's fmix32 so similar names still spread evenly.
  let h = fnv1a(key);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h = (h ^ (h >>> 16)) >>> 0;
  return (h / 2 ** 32) * 0.2;
}
