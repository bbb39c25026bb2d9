/**
 * Bodies are JSON only (CAP-ERR-2..4): every other media type with a body is 415; an empty JSON body is
 * "no body" (drivers send `Content-Type: application/json` on body-less acks); unparsable JSON is 400
 * malformed_json. Fastify enforces the body limit (413) while reading, before this parser runs.
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
}
