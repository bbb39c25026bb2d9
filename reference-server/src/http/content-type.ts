/**
 * Bodies are JSON only (CAP-ERR-2..4). An empty body counts as no body whatever its Content-Type (drivers
 * send `Content-Type: application/json` on body-less acks). A non-empty body of any other media type is 415,
 * decided from the headers before the body is read, so media type wins over body size as CAP orders them.
 * Fastify enforces the body limit (413) while reading JSON; unparsable JSON is 400 malformed_json.
 *
 * A JSON body that declares a length over the limit is read to its end and dropped before the 413 goes
 * out, up to DRAIN_LIMIT_BYTES. Answered at once, the kernel closed the connection while the client was
 * still sending, and the client saw EPIPE or a reset instead of the answer (the conformance suite's
 * body-too-large check, about 1 in 20 times here). A larger declared body is refused at once, as before.
 *
 * A parsed body nested deeper than `limits.maxJsonDepth` is 400 json_too_deep before any hook or handler
 * sees it: deep values overflowed recursive code further on (JSON.stringify in the stores, canonical JSON
 * for Idempotency-Key) and answered 500. JSON.parse itself is iterative and safe at any depth; the check is
 * one walk of the parsed value that stops one level past the limit (json-depth.ts), small beside
 * JSON.parse's own time.
 * Replies go out through depthSafeSerializer, so nothing stored before this limit can fail a read.
 */
import type { FastifyInstance } from "fastify";
import { KernelError } from "../errors/registry.js";
import { deeperThan, depthSafeSerializer } from "./json-depth.js";

/** The largest over-limit body read to its end so that its sender gets the 413 (see above). */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

const mediaType = (header: string | undefined) => (header ?? "").split(";")[0]?.trim().toLowerCase();

export function installJsonOnly(app: FastifyInstance, maxDepth: number): void {
  app.setReplySerializer(depthSafeSerializer(maxDepth));
  const bodyLimit = app.initialConfig.bodyLimit ?? 1_048_576;
  app.addHook("preParsing", (req, _reply, payload, done) => {
    const declared = Number(req.headers["content-length"]);
    if (!(declared > bodyLimit && declared <= DRAIN_LIMIT_BYTES)) return done(null, payload);
    if (mediaType(req.headers["content-type"]) !== "application/json") return done(null, payload);
    payload.on("data", () => undefined);
    payload.once("end", () => done(new KernelError("body_too_large")));
    payload.once("error", (err) => done(err));
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === "") return done(null, undefined);
    let value: unknown;
    try {
      // `__proto__` keys are dropped so no later merge can reach an object's prototype.
      value = text.includes("__proto__")
        ? JSON.parse(text, (k, v) => (k === "__proto__" ? undefined : v))
        : JSON.parse(text);
    } catch (err) {
      // Only the reviver recurses (a body holding `__proto__`): its stack overflow means too deep.
      const code = err instanceof RangeError ? "json_too_deep" : "malformed_json";
      done(new KernelError(code, undefined, code === "json_too_deep" ? { maxDepth } : undefined), undefined);
      return;
    }
    if (deeperThan(value, maxDepth))
      done(new KernelError("json_too_deep", undefined, { maxDepth }), undefined);
    else done(null, value);
  });
  app.addContentTypeParser("*", (req, _payload, done) => {
    const empty =
      req.headers["transfer-encoding"] === undefined && Number(req.headers["content-length"] ?? 0) === 0;
    if (empty) return done(null, undefined);
    done(new KernelError("unsupported_media_type"), undefined);
  });
}
