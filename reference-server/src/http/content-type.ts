/**
 * Bodies are JSON only (CAP-ERR-2..4). An empty body counts as no body whatever its Content-Type (drivers
 * send `Content-Type: application/json` on body-less acks). A non-empty body of any other media type is 415,
 * decided from the headers before the body is read, so media type wins over body size as CAP orders them.
 * Fastify enforces the body limit (413) while reading JSON; unparsable JSON is 400 malformed_json.
 */
import type { FastifyInstance } from "fastify";
import { KernelError } from "../errors/registry.js";

export function installJsonOnly(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === "") return done(null, undefined);
    try {
      // `__proto__` keys are dropped so no later merge can reach an object's prototype.
      done(
        null,
        text.includes("__proto__")
          ? JSON.parse(text, (k, v) => (k === "__proto__" ? undefined : v))
          : JSON.parse(text),
      );
    } catch {
      done(new KernelError("malformed_json"), undefined);
    }
  });
  app.addContentTypeParser("*", (req, _payload, done) => {
    const empty =
      req.headers["transfer-encoding"] === undefined && Number(req.headers["content-length"] ?? 0) === 0;
    if (empty) return done(null, undefined);
    done(new KernelError("unsupported_media_type"), undefined);
  });
}
