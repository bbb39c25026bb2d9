/**
 * Raw sockets for the connection-limit tests: open one from a chosen loopback address (Linux routes all
 * of 127.0.0.0/8 to lo, so 127.0.0.2 is a second client on the same machine) and collect what it
 * receives; time sequential `GET /healthz` requests from an address on one keep-alive connection.
 */
import { Agent, request } from "node:http";
import { connect, type Socket } from "node:net";

export interface OpenSocket {
  socket: Socket;
  /** Everything received so far, as text. */
  received(): string;
  /** performance.now() when the socket closed. */
  closed: Promise<number>;
}

/** A connected socket from `localAddress` to 127.0.0.1:`port`; it is added to `track` for clean-up. */
export function openSocket(port: number, localAddress: string, track: Socket[]): Promise<OpenSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, localAddress });
    track.push(socket);
    let data = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      data += chunk;
    });
    const closed = new Promise<number>((done) => socket.once("close", () => done(performance.now())));
    socket.on("error", () => {});
    socket.once("connect", () => resolve({ socket, received: () => data, closed }));
    socket.once("error", reject);
  });
}

export interface Latencies {
  statuses: Record<string, number>;
  p50: number;
  p99: number;
  max: number;
}

/** `count` sequential GET /healthz from `localAddress` on one keep-alive connection; latencies in ms. */
export async function timeHealthz(port: number, localAddress: string, count: number): Promise<Latencies> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const ms: number[] = [];
  const statuses: Record<string, number> = {};
  try {
    for (let i = 0; i < count; i++) {
      const t0 = performance.now();
      const status = await new Promise<string>((resolve) => {
        const req = request({ host: "127.0.0.1", port, path: "/healthz", agent, localAddress }, (res) => {
          res.resume();
          res.on("end", () => resolve(String(res.statusCode)));
        });
        req.on("error", (err: Error & { code?: string }) => resolve(err.code ?? err.message));
        req.end();
      });
      ms.push(performance.now() - t0);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  } finally {
    agent.destroy();
  }
  ms.sort((a, b) => a - b);
  const q = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]!;
  return { statuses, p50: q(0.5), p99: q(0.99), max: ms.at(-1)! };
}

export const describeLatency = (l: Latencies) =>
  `p50 ${l.p50.toFixed(2)} ms, p99 ${l.p99.toFixed(2)} ms, max ${l.max.toFixed(2)} ms`;
