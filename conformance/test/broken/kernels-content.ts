/** Broken kernels for messages, idempotency, message reads, memory, decisions, compatibility and schemas. */
import { type BrokenKernel, is } from "./env.js";
import { reply } from "./proxy.js";

const isPost = (req: Parameters<typeof is>[0]) => is(req, "POST", /^\/pods\/[^/]+\/messages$/);

export const contentKernels: BrokenKernel[] = [
  {
    name: "answers a post with 200 instead of 201",
    breaks: "CAP-MSG-1",
    only: ["messages.post-created"],
    make: () => ({
      response(req, res) {
        return isPost(req) && res.status === 201 ? { ...res, status: 200 } : res;
      },
    }),
  },
  {
    name: "accepts empty content",
    breaks: "CAP-MSG-3",
    only: ["messages.invalid-content"],
    make: () => ({
      request(req) {
        const body = req.json as { content?: unknown } | undefined;
        if (isPost(req) && body && (typeof body.content !== "string" || body.content.trim() === ""))
          body.content = "(empty)";
        return req;
      },
    }),
  },
  {
    name: "trims message content",
    breaks: "CAP-MSG-2",
    only: ["messages.mention-wakes-agent"],
    make: () => ({
      request(req) {
        const body = req.json as { content?: unknown } | undefined;
        if (isPost(req) && typeof body?.content === "string") body.content = body.content.trim();
        return req;
      },
    }),
  },
  {
    name: "ignores Idempotency-Key",
    breaks: "CAP-IDEM-1",
    only: ["idempotency.replay"],
    make: () => ({
      request(req) {
        delete req.headers["idempotency-key"];
        return req;
      },
    }),
  },
  {
    name: "flags no message as self",
    breaks: "CAP-READ-2",
    only: ["message-read.self-and-is-bot"],
    make: () => ({
      response(req, res) {
        const list = (res.json as { messages?: { self: boolean }[] } | undefined)?.messages;
        if (is(req, "GET", /^\/pods\/[^/]+\/messages$/) && Array.isArray(list))
          for (const m of list) m.self = false;
        return res;
      },
    }),
  },
  {
    name: "skips sync dedup (never answers deduped: true)",
    breaks: "CAP-MEM-13",
    only: ["memory.sync-dedup"],
    make: () => ({
      response(req, res) {
        if (is(req, "POST", /^\/memory\/sync$/)) delete (res.json as { deduped?: boolean }).deduped;
        return res;
      },
    }),
  },
  {
    name: "replaces all sections on PUT instead of only the named ones",
    breaks: "CAP-MEM-8",
    only: ["memory.put-replaces-named-sections"],
    make: () => ({
      request(req) {
        const body = req.json as { sections?: unknown; content?: unknown } | undefined;
        if (is(req, "PUT", /^\/memory$/) && body?.sections && body.content === undefined) {
          req.method = "POST";
          req.url.pathname += "/sync";
          req.json = { sections: body.sections, mode: "full", sourceRuntime: `replace-${Date.now()}` };
        }
        return req;
      },
      response(req, res) {
        return is(req, "POST", /^\/memory\/sync$/) && res.status === 200
          ? reply(200, { ok: true, schemaVersion: 2 })
          : res;
      },
    }),
  },
  {
    name: "counts byteSize in characters, not UTF-8 bytes",
    breaks: "CAP-MEM-4",
    only: ["memory.server-stamped"],
    make: () => ({
      response(req, res) {
        const sections = (res.json as { sections?: Record<string, { content?: string; byteSize?: number }> })
          ?.sections;
        if (is(req, "GET", /^\/memory$/) && sections)
          for (const s of Object.values(sections))
            if (s && typeof s.content === "string") s.byteSize = s.content.length;
        return res;
      },
    }),
  },
  {
    name: "accepts unknown fields in a decision",
    breaks: "CAP-DEC-2",
    only: ["decisions.rejects-invalid"],
    make: () => {
      const allowed = ["podId", "decisionClass", "title", "question", "options", "threadRootId", "context"];
      return {
        request(req) {
          const body = req.json as Record<string, unknown> | undefined;
          if (is(req, "POST", /^\/decisions$/) && body)
            for (const k of Object.keys(body)) if (!allowed.includes(k)) delete body[k];
          return req;
        },
      };
    },
  },
  {
    name: "sends mention.received payloads without messageId",
    breaks: "CAP-EVT-6",
    only: ["messages.mention-wakes-agent", "schema.*"],
    make: () => ({
      response(req, res) {
        if (req.method === "GET" && req.url.pathname.endsWith("/events"))
          for (const e of (res.json as { events?: { type: string; payload: Record<string, unknown> }[] })
            ?.events ?? [])
            if (e.type === "mention.received") delete e.payload.messageId;
        return res;
      },
    }),
  },
  {
    name: "rejects unknown body fields on posts",
    breaks: "CAP-COMPAT-4",
    only: ["compat.unknown-body-fields-ignored"],
    make: () => ({
      request(req) {
        const body = req.json as Record<string, unknown> | undefined;
        if (
          isPost(req) &&
          body &&
          Object.keys(body).some((k) => !["content", "replyToMessageId", "metadata"].includes(k))
        )
          return reply(400, {
            code: "validation_failed",
            message: "unknown field",
            details: { errors: [{ path: "/", message: "unknown field" }] },
          });
        return req;
      },
    }),
  },
];
