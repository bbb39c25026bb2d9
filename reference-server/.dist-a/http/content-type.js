import { KernelError } from "../errors/registry.js";
/** The largest over-limit body read to its end so that its sender gets the 413 (see above). */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
const mediaType = (header) => (header ?? "").split(";")[0]?.trim().toLowerCase();
export function installJsonOnly(app) {
    const bodyLimit = app.initialConfig.bodyLimit ?? 1_048_576;
    app.addHook("preParsing", (req, _reply, payload, done) => {
        const declared = Number(req.headers["content-length"]);
        if (!(declared > bodyLimit && declared <= DRAIN_LIMIT_BYTES))
            return done(null, payload);
        if (mediaType(req.headers["content-type"]) !== "application/json")
            return done(null, payload);
        payload.on("data", () => undefined);
        payload.once("end", () => done(new KernelError("body_too_large")));
        payload.once("error", (err) => done(err));
    });
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, body, done) => {
        const text = body.trim();
        if (text === "")
            return done(null, undefined);
        try {
            // `__proto__` keys are dropped so no later merge can reach an object's prototype.
            done(null, text.includes("__proto__")
                ? JSON.parse(text, (k, v) => (k === "__proto__" ? undefined : v))
                : JSON.parse(text));
        }
        catch {
            done(new KernelError("malformed_json"), undefined);
        }
    });
    app.addContentTypeParser("*", (req, _payload, done) => {
        const empty = req.headers["transfer-encoding"] === undefined && Number(req.headers["content-length"] ?? 0) === 0;
        if (empty)
            return done(null, undefined);
        done(new KernelError("unsupported_media_type"), undefined);
    });
}
//# sourceMappingURL=content-type.js.map