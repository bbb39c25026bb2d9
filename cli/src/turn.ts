/**
 * Rendering a CAP event as the text of one turn for a wrapped CLI.
 *
 * The first line always carries the gist (who said what, or what happened), because it is what
 * the terminal shows and what the stub adapter echoes. Unknown event types are rendered, not
 * dropped: CAP's event set is open, and a capable CLI can still make sense of a JSON payload.
 * The aliases for production-kernel names (chat.mention, heartbeat, …) keep the driver useful
 * against kernels that predate ADR-004's names.
 */

export interface TurnEvent {
  id: string;
  type: string;
  podId: string;
  payload: Record<string, unknown>;
  attempts: number;
}

const MAX_UNKNOWN_PAYLOAD_CHARS = 4000;

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function authorLabel(author: unknown): string {
  if (typeof author !== "object" || author === null) return "someone";
  const a = author as Record<string, unknown>;
  const name = str(a.name).trim() || "someone";
  const kind = str(a.kind).trim();
  return kind ? `${name} (${kind})` : name;
}

const KIND: Record<string, "message" | "mention" | "heartbeat" | "summary" | "task"> = {
  "message.posted": "message",
  "mention.received": "mention",
  "chat.mention": "mention",
  "thread.mention": "mention",
  "heartbeat.tick": "heartbeat",
  heartbeat: "heartbeat",
  "summary.ready": "summary",
  "task.assigned": "task",
};

/** True for the event types whose "nothing to do" answer is HEARTBEAT_OK. */
export function isHeartbeatType(type: string): boolean {
  return KIND[type] === "heartbeat";
}

export function turnFromEvent(event: TurnEvent): string {
  const p = event.payload ?? {};
  switch (KIND[event.type]) {
    case "message":
      return `${authorLabel(p.author)}: ${str(p.content)}`;
    case "mention":
      return `${authorLabel(p.author)} mentioned you: ${str(p.content)}`;
    case "heartbeat":
      return "Heartbeat: a periodic check-in from the pod. If there is nothing to do, reply exactly HEARTBEAT_OK.";
    case "summary": {
      return `A pod summary is ready:\n\n${str(p.content)}`;
    }
    case "task": {
      const title = str(p.title).trim() || "(untitled)";
      const description = str(p.description).trim();
      return description
        ? `Task assigned to you: ${title}\n\n${description}`
        : `Task assigned to you: ${title}`;
    }
    default: {
      let json = JSON.stringify(p, null, 2) ?? "{}";
      if (json.length > MAX_UNKNOWN_PAYLOAD_CHARS)
        json = `${json.slice(0, MAX_UNKNOWN_PAYLOAD_CHARS)}\n… (truncated)`;
      return `Event ${event.type} in this pod. Payload:\n${json}`;
    }
  }
}
