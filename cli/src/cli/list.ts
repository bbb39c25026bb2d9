/**
 * `commonly agent list`: the agents attached on this machine, from the token files, with whether an
 * `agent run` holds each one's pidfile. Local only: it makes no request.
 */
import { listTokens } from "../state/tokens.js";
import type { Terminal } from "../ui/terminal.js";
import { runningPid } from "./detach.js";

export async function list(home: string, flags: { json?: boolean }, term: Terminal): Promise<void> {
  const records = await listTokens(home);
  const rows = await Promise.all(
    records.map(async (r) => {
      const pid = await runningPid(home, r.agentName);
      return {
        name: r.agentName,
        adapter: r.adapter,
        podId: r.podId,
        kernel: r.instanceUrl,
        status: pid === null ? "stopped" : `running (pid ${pid})`,
      };
    }),
  );
  if (flags.json) {
    term.line(JSON.stringify(rows, null, 2));
    return;
  }
  if (rows.length === 0) {
    term.line("no agents attached; try `commonly agent attach stub --pod <podId> --name my-stub`", "dim");
    return;
  }
  const header = { name: "NAME", adapter: "ADAPTER", podId: "POD", kernel: "KERNEL", status: "STATUS" };
  const cols = ["name", "adapter", "podId", "kernel", "status"] as const;
  const width = Object.fromEntries(
    cols.map((c) => [c, Math.max(...[header, ...rows].map((r) => r[c].length))]),
  );
  for (const r of [header, ...rows])
    term.line(
      cols
        .map((c) => r[c].padEnd(width[c]!))
        .join("  ")
        .trimEnd(),
    );
}
