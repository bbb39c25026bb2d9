/**
 * Open connections per client address (`limits.maxConnectionsPerClient`), and the server timeouts that
 * close what a client opens and then leaves silent. One client holding ~20,000 silent sockets made every
 * new connection fail (issue 30): with this cap it holds at most the limit, and a silent socket is closed
 * after `limits.headersTimeoutMs`, so the kernel's descriptors stay free for everyone else.
 *
 * A connection over the cap never reaches the HTTP server: it gets one complete `HTTP/1.1 429` answer in
 * the registry shape (`too_many_connections`), what it sends is read and dropped (closing a socket with
 * unread data would reset it and could destroy the answer in flight), and it is closed.
 *
 * The address is the socket's peer address (IPv6 grouped by /64, as the rate limits do): behind a reverse
 * proxy every client is the proxy, so there the cap must be raised or left to the proxy (README, "Limits").
 * Must never: hand a refused socket to the HTTP parser, count a socket twice, or forget one that closed.
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";
import { normalizeIP } from "@fastify/rate-limit";
import type { KernelLimits } from "../config.js";
import { errorEntry } from "../errors/registry.js";

/** How long a refused socket may stay open to receive the answer before it is destroyed. */
const REFUSED_LINGER_MS = 1000;

/**
 * Node's timeouts for a kernel serving long-polls. A waiting poll is a request in flight, which none of
 * these cuts: `headersTimeout` and `requestTimeout` cover receiving a request (its head; all of it), the
 * keep-alive timeout only the idle time between requests, and there is no idle-socket timeout. Silent
 * sockets are found by a check every `connectionsCheckingInterval`, a quarter of the headers timeout
 * (at most 1 s), so one is closed at most that much after its timeout.
 */
export function serverTimeouts(limits: Pick<KernelLimits, "headersTimeoutMs" | "keepAliveTimeoutMs">) {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: Math.max(60_000, limits.headersTimeoutMs),
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
  };
}

function refusalBytes(maxPerClient: number): Buffer {
  const entry = errorEntry("too_many_connections");
  const body = JSON.stringify({
    code: entry.code,
    message: entry.message,
    details: { maxConnectionsPerClient: maxPerClient },
  });
  return Buffer.from(
    `HTTP/1.1 ${entry.status} Too Many Requests\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "Retry-After: 1\r\nConnection: close\r\n\r\n" +
      body,
  );
}

/**
 * Caps the open connections of each client address on `server`. Call once, before it listens: the HTTP
 * server's own 'connection' listeners then see only the sockets admitted here.
 */
export function installConnectionLimits(server: Server, maxPerClient: number) {
  const open = new Map<string, number>();
  const refusal = refusalBytes(maxPerClient);
  const httpListeners = server.listeners("connection") as ((socket: Socket) => void)[];
  server.removeAllListeners("connection");

  server.on("connection", (socket: Socket) => {
    const key = socket.remoteAddress === undefined ? "" : normalizeIP(socket.remoteAddress);
    const count = open.get(key) ?? 0;
    if (count >= maxPerClient) {
      refuse(socket, refusal);
      return;
    }
    open.set(key, count + 1);
    socket.once("close", () => {
      const n = (open.get(key) ?? 1) - 1;
      if (n <= 0) open.delete(key);
      else open.set(key, n);
    });
    for (const listener of httpListeners) listener.call(server, socket);
  });
}

function refuse(socket: Socket, answer: Buffer) {
  socket.on("error", () => {});
  const linger = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
  linger.unref();
  socket.once("close", () => clearTimeout(linger));
  socket.resume();
  socket.end(answer);
}
