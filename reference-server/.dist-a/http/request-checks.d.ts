/**
 * Per-route request checks run in preValidation (after auth and body parsing, before the handler), in
 * CAP's precedence order: query, then path params, then body. Unknown fields are ignored wherever the
 * schema leaves objects open (CAP routes); only closed schemas (decisions, memory sections) reject them.
 */
import type { ValidateFunction } from "ajv";
import type { FastifyRequest, preValidationHookHandler } from "fastify";
export interface Checks {
    query?: ValidateFunction;
    body?: ValidateFunction;
    /** true: a missing body is validated as `{}` (e.g. ack). */
    optionalBody?: boolean;
    /** Runs before the body schema (e.g. unknown memory sections answer their own code). */
    beforeBody?: (req: FastifyRequest) => void;
}
export declare function checks(c: Checks): preValidationHookHandler;
