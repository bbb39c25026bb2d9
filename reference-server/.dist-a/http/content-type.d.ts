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
 */
import type { FastifyInstance } from "fastify";
/** The largest over-limit body read to its end so that its sender gets the 413 (see above). */
export declare const DRAIN_LIMIT_BYTES: number;
export declare function installJsonOnly(app: FastifyInstance): void;
