/**
 * Auditors that look at every exchange of a run, whichever check sent it: each 2xx body must validate
 * against the generated schema of its operation (and each event's payload against its documented type),
 * and each non-2xx answer must carry the error shape with a registered code sent with its registered
 * status. The `schema.*` and `errors.*` aggregate checks report what these collected.
 */

import { type SchemaName, validate } from "@commonly/cap-sdk/validators";
import { CAP_BASE_PATH } from "@commonly/cap-spec/constants";
import type { Exchange } from "./exchange.js";

const R = CAP_BASE_PATH;
const routes: [method: string, pattern: RegExp, schema: SchemaName][] = [
  ["GET", new RegExp(`^${R}/events$`), "EventList"],
  ["POST", new RegExp(`^${R}/events/[^/]+/ack$`), "AckResponse"],
  ["POST", new RegExp(`^${R}/events/[^/]+/renew$`), "RenewResponse"],
  ["POST", new RegExp(`^${R}/pods/[^/]+/messages$`), "PostMessageResponse"],
  ["GET", new RegExp(`^${R}/pods/[^/]+/messages$`), "PodMessageList"],
  ["GET", new RegExp(`^${R}/memory$`), "MemoryEnvelope"],
  ["PUT", new RegExp(`^${R}/memory$`), "PutMemoryResponse"],
  ["POST", new RegExp(`^${R}/memory/sync$`), "SyncMemoryResponse"],
  ["GET", new RegExp(`^${R}/info$`), "Info"],
  ["POST", new RegExp(`^${R}/decisions$`), "DecisionResponse"],
];

/** Documented event types and the schema of their payload. */
export const payloadSchemas: Record<string, SchemaName> = {
  "message.posted": "MessagePostedPayload",
  "mention.received": "MentionReceivedPayload",
  "heartbeat.tick": "HeartbeatTickPayload",
  "summary.ready": "SummaryReadyPayload",
  "task.assigned": "TaskAssignedPayload",
};

export function schemaFor(method: string, url: string): SchemaName | undefined {
  const path = new URL(url).pathname;
  return routes.find(([m, p]) => m === method && p.test(path))?.[2];
}

export interface Violation {
  exchange: Exchange;
  what: string;
  problems: string[];
}

export interface RegistryEntry {
  code: string;
  status: number;
}

const issues = (r: ReturnType<typeof validate>) =>
  r.valid ? [] : r.issues.map((i) => `${i.path} ${i.message}`);

/** Schema problems of a 2xx exchange (empty when valid or when the route is not a CAP operation). */
export function auditSuccess(x: Exchange): Violation[] {
  const schema = schemaFor(x.method, x.url);
  if (!schema || x.status < 200 || x.status >= 300) return [];
  if (x.json === undefined)
    return [{ exchange: x, what: `${schema} (body is not JSON)`, problems: ["not JSON"] }];
  const out: Violation[] = [];
  const top = issues(validate(schema, x.json));
  if (top.length > 0) out.push({ exchange: x, what: schema, problems: top });
  if (schema === "EventList" && top.length === 0) {
    for (const [i, e] of (x.json as { events: { type: string; payload: unknown }[] }).events.entries()) {
      const p = payloadSchemas[e.type];
      const bad = p ? issues(validate(p, e.payload)) : [];
      if (bad.length > 0)
        out.push({
          exchange: x,
          what: `${p} (events[${i}].payload)`,
          problems: bad.map((b) => `/events/${i}/payload${b}`),
        });
    }
  }
  return out;
}

/** Error-shape problems of a non-2xx exchange. */
export function auditError(x: Exchange, registry: ReadonlyMap<string, RegistryEntry>): Violation[] {
  if (x.status < 300) return [];
  const problems: string[] = [];
  const type = x.responseHeaders["content-type"] ?? "";
  if (!/^application\/(problem\+)?json\b/i.test(type))
    problems.push(`Content-Type is ${JSON.stringify(type)}`);
  if (x.json === undefined) problems.push("body is not JSON");
  else {
    problems.push(...issues(validate("Error", x.json)));
    const code = (x.json as { code?: unknown }).code;
    if (typeof code === "string") {
      const entry = registry.get(code);
      if (!entry) problems.push(`code ${JSON.stringify(code)} is not in the error registry`);
      else if (entry.status !== x.status)
        problems.push(`code ${code} is registered with status ${entry.status}, sent with ${x.status}`);
    }
    if (/\bat .+:\d+:\d+\)?$/m.test(x.responseBody))
      problems.push("body looks like it carries a stack trace");
  }
  return problems.length > 0 ? [{ exchange: x, what: "Error", problems }] : [];
}
