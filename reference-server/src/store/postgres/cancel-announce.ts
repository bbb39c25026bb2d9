/**
 * How a cancel travels to the other replicas: a NOTIFY on the store's channel, sent by the cancelling
 * statement (delivered at its commit), whose payload after the origin is `!cancel:<agentId>/<eventId>`.
 * A "!" payload is a control message (listen.ts), and a replica of an earlier kernel passes every control
 * message it does not know to its auth announcer, which ignores it: so old listeners are not confused into
 * waking an agent whose id would be the whole payload.
 *
 * Must never: produce a payload a listener could read as a ready agent id (one without the "!").
 */

export const CANCEL_PREFIX = "!cancel:";

/** The SQL of the payload after the origin, from SQL expressions of the agent and event ids. */
export const cancelPayloadSql = (agentId: string, eventId: string) =>
  `'${CANCEL_PREFIX}' || ${agentId} || '/' || ${eventId}`;

/** The agent and event of a `!cancel:` payload (after the origin); null when it is not one. */
export function parseCancel(rest: string): { agentId: string; eventId: string } | null {
  if (!rest.startsWith(CANCEL_PREFIX)) return null;
  const body = rest.slice(CANCEL_PREFIX.length);
  // Kernel ids are ASCII letters, digits and "_": the first "/" ends the agent id.
  const slash = body.indexOf("/");
  if (slash <= 0 || slash === body.length - 1) return null;
  return { agentId: body.slice(0, slash), eventId: body.slice(slash + 1) };
}
