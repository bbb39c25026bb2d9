/**
 * The one error shape for what goes wrong below the routes (issue 30, finding 6). Each source, with what a
 * client gets:
 * - Fastify's router (the `frameworkErrors` option): a path that is not valid percent-encoding
 *   (FST_ERR_BAD_URL) is 400 malformed_url; a path segment longer than the router matches (100 characters,
 *   FST_ERR_MAX_PARAM_LENGTH; no id is that long) is 404 route_not_found.
 * - Node's HTTP parser (Fastify's `clientErrorHandler` option), before any request object exists, written
 *   raw on the socket, which is then closed: request line and headers over MAX_HEADER_BYTES are 431
 *   headers_too_large; a head or body not received within the server's timeouts is 408 request_timeout;
 *   anything else the parser refuses (method, version, header bytes, Content-Length, chunked encoding,
 *   Content-Length with Transfer-Encoding) is 400 malformed_request.
 * - Node's own answers outside Fastify (installFrameworkErrors): an HTTP/1.1 request without Host (Node's
 *   empty 400) is 400 malformed_request; an `Expect` other than 100-continue (Node's empty 417) is ignored
 *   and the request served, as RFC 9110 allows; CONNECT (Node drops the socket without a word) is 404
 *   route_not_found.
 * Media type, body size and JSON syntax errors are mapped in errors.ts; JSON depth in content-type.ts.
 * Must never: answer outside the registry shape, or echo any byte of the request (a token in a URL) into
 * an answer.
 */
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyError, FastifyReply, FastifyRequest, FastifyServerOptions } from "fastify";
import { type ErrorCode, errorEntry } from "../errors/registry.js";
import { sendError } from "./errors.js";

/** Largest request line plus headers the server reads (Node's default, 16 KiB, made explicit). */
export const MAX_HEADER_BYTES = 16 * 1024;

/** The server options this module's answers rely on: spread into Fastify's `http` option. */
export const FRAMEWORK_HTTP_OPTIONS = {
  maxHeaderSize: MAX_HEADER_BYTES,
  // Node would answer a missing Host with an empty 400; installFrameworkErrors answers it instead.
  requireHostHeader: false,
};

function registryBody(code: ErrorCode, message?: string, details?: Record<string, unknown>): string {
  const entry = errorEntry(code);
  return JSON.stringify({ code, message: message ?? entry.message, ...(details ? { details } : {}) });
}

/** How long a socket answered here may stay open, reading and dropping what the client still sends. */
const LINGER_MS = 1000;

/**
 * A whole HTTP/1.1 answer written on a socket that has no request object, then the socket closed. The
 * client may still be sending (the rest of an oversized head): closing with unread data would reset the
 * connection and could destroy the answer in flight, so what arrives is read and dropped until the client
 * closes or LINGER_MS passes.
 */
function answerRaw(socket: Duplex, code: ErrorCode, details?: Record<string, unknown>): void {
  if (!socket.writable) return;
  const status = errorEntry(code).status;
  const body = registryBody(code, undefined, details);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  socket.on("data", () => undefined);
  socket.resume();
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once("close", () => clearTimeout(linger));
}

const PARSER_CODES: Record<string, ErrorCode> = {
  HPE_HEADER_OVERFLOW: "headers_too_large",
  ERR_HTTP_REQUEST_TIMEOUT: "request_timeout",
};

type FrameworkOptions = Required<Pick<FastifyServerOptions, "frameworkErrors" | "clientErrorHandler">>;

export const FRAMEWORK_ERROR_OPTIONS: FrameworkOptions = {
  frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply) {
    if (err.code === "FST_ERR_BAD_URL") return sendError(reply, "malformed_url");
    if (err.code === "FST_ERR_MAX_PARAM_LENGTH")
      return sendError(reply, "route_not_found", "No route takes a path segment that long.");
    reply.log.error({ err }, "framework error");
    return sendError(reply, "internal_error");
  },
  clientErrorHandler(err: Error & { code?: string }, socket: Duplex) {
    // A reset or an already closed socket has no one left to answer.
    if (err.code === "ECONNRESET" || socket.destroyed) return;
    const code = PARSER_CODES[err.code ?? ""] ?? "malformed_request";
    answerRaw(socket, code, code === "headers_too_large" ? { maxBytes: MAX_HEADER_BYTES } : undefined);
  },
};

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** Takes over Node's own answers (see the header); call once, right after Fastify made the server. */
export function installFrameworkErrors(server: Server): void {
  const handlers = server.listeners("request") as Listener[];
  // Fastify's handler, called directly: this wrapper runs on every request.
  const [only] = handlers;
  const serve: Listener =
    only !== undefined && handlers.length === 1
      ? only
      : (req, res) => {
          for (const h of handlers) h(req, res);
        };
  server.removeAllListeners("request");
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    if (req.httpVersionMajor === 1 && req.httpVersionMinor === 1 && req.headers.host === undefined) {
      const body = registryBody("malformed_request", "An HTTP/1.1 request needs a Host header.");
      res.writeHead(400, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(body),
        connection: "close",
      });
      res.end(body);
      return;
    }
    serve(req, res);
  });
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) =>
    server.emit("request", req, res),
  );
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => answerRaw(socket, "route_not_found"));
}
