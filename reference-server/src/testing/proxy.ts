/**
 * An HTTP proxy in front of a kernel that lets a test act at an exact point of a driver's conversation:
 * each answer is read whole from the kernel, `onAnswer` runs, and only then is the answer sent on to the
 * driver — e.g. take the store away right after a driver's reply was posted and before it acks — or
 * see what a driver sent (each request's headers come with its answer).
 * Must never: change a request or an answer.
 */
import { createServer, type IncomingHttpHeaders, request } from "node:http";

export interface AnswerSeen {
  method: string;
  path: string;
  status: number;
  /** The request's headers as the proxy received them (e.g. a driver's `traceparent`). */
  headers: IncomingHttpHeaders;
}

export interface InterposedProxy {
  url: string;
  close(): Promise<void>;
}

export async function interposeProxy(
  target: string,
  onAnswer: (answer: AnswerSeen) => void,
): Promise<InterposedProxy> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    const up = request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (c: Buffer) => chunks.push(c));
        answer.on("end", () => {
          onAnswer({
            method: req.method ?? "GET",
            path: req.url ?? "/",
            status: answer.statusCode ?? 0,
            headers: req.headers,
          });
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(chunks));
        });
      },
    );
    up.on("error", () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
