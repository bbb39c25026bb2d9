/**
 * The wire log of a failure, one line per exchange: time since the first, method, path and query,
 * status, what the fault layer did. Used by the driver suite's failures in every text report.
 */
import type { Exchange } from "../http/exchange.js";

export function wireLines(wire: readonly Exchange[] | undefined, max = 30): string[] {
  if (!wire || wire.length === 0) return [];
  const t0 = Date.parse(wire[0]?.startedAt ?? "");
  return wire.slice(-max).map((x) => {
    const u = new URL(x.url, "http://x");
    const dt = ((Date.parse(x.startedAt) - t0) / 1000).toFixed(3);
    const fault = (x as { fault?: string }).fault;
    const status = x.status === 0 ? "no answer" : String(x.status);
    const retry = x.responseHeaders["retry-after"] ? ` Retry-After: ${x.responseHeaders["retry-after"]}` : "";
    return `+${dt}s ${x.method} ${u.pathname}${u.search} → ${status}${retry} (${x.durationMs} ms)${fault ? ` [fault layer: ${fault}]` : ""}`;
  });
}
