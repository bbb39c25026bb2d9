/**
 * One error shape everywhere (issue 30, finding 6): requests that fail below the routes — in Fastify's
 * router or Node's HTTP parser, or that Node answered itself — get the registry shape `{code, message}`
 * with the registry's status, over a real socket. A table: the bytes a client sends → the status and code.
 * The audit found Fastify's own FST_ERR_BAD_URL body and a non-registry 431; the rest were found by
 * trying every class of malformed HTTP/1.1 the parser refuses.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadErrorRegistry } from "../../src/errors/registry.js";
import { MAX_HEADER_BYTES } from "../../src/http/framework-errors.js";
import { makeWorld, type World } from "../helpers/world.js";

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `bytes` on a fresh connection and reads one HTTP/1.1 answer (by Content-Length) or until close. */
function exchange(port: number, bytes: string, pauseAfter?: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let data = Buffer.alloc(0);
    const finish = () => {
      socket.destroy();
      const text = data.toString("latin1");
      const split = text.indexOf("\r\n\r\n");
      if (split < 0) return reject(new Error(`no answer, got ${JSON.stringify(text)}`));
      const [statusLine, ...lines] = text.slice(0, split).split("\r\n");
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
      );
      resolve({
        status: Number(statusLine!.split(" ")[1]),
        headers,
        body: data.subarray(split + 4).toString(),
      });
    };
    socket.on("data", (d) => {
      data = Buffer.concat([data, d]);
      const text = data.toString("latin1");
      const split = text.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, split));
      if (split >= 0 && length && data.length >= split + 4 + Number(length[1])) finish();
    });
    socket.on("close", finish);
    socket.on("error", () => undefined);
    socket.write(pauseAfter === undefined ? bytes : bytes.slice(0, pauseAfter));
  });
}

let w: World;
let port: number;
beforeAll(async () => {
  w = await makeWorld({ config: { limits: { headersTimeoutMs: 300 } } });
  await w.app.listen({ host: "127.0.0.1", port: 0 });
  port = (w.app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await w.app.close();
});

const CAP = "/api/agents/runtime";
const auth = () => `Authorization: Bearer ${w.alpha.token}\r\n`;
const get = (target: string, extra = "") =>
  `GET ${target} HTTP/1.1\r\nHost: k\r\n${extra}Connection: close\r\n\r\n`;
const ack = (extra: string, body = "", type = "application/json") =>
  `POST ${CAP}/events/ack HTTP/1.1\r\nHost: k\r\n${auth()}Content-Type: ${type}\r\n${extra}Connection: close\r\n\r\n${body}`;

type Case = [given: string, want: string, request: () => string, pauseAfter?: number];
const cases: Case[] = [
  [
    "a path with an invalid percent escape (%zz)",
    "400 malformed_url",
    () =>
      `POST ${CAP}/events/%zz/ack HTTP/1.1\r\nHost: k\r\n${auth()}Content-Length: 0\r\nConnection: close\r\n\r\n`,
  ],
  ["a path with a lone %", "400 malformed_url", () => get(`${CAP}/pods/%/messages`, auth())],
  [
    "an admin path escaping bytes that are not UTF-8 (%ff)",
    "400 malformed_url",
    () => get("/api/pods/%ff", auth()),
  ],
  ["an unauthenticated path with an invalid escape", "400 malformed_url", () => get("/api/users/%E0%A4%A")],
  [
    "a path segment of 300 characters",
    "404 route_not_found",
    () => get(`${CAP}/pods/${"p".repeat(300)}/messages`, auth()),
  ],
  [
    "request line and headers over 16 KiB",
    "431 headers_too_large",
    () => get("/healthz", `X-Pad: ${"a".repeat(MAX_HEADER_BYTES)}\r\n`),
  ],
  [
    "request line and headers just under 16 KiB",
    "200",
    () => get("/healthz", `X-Pad: ${"a".repeat(MAX_HEADER_BYTES - 200)}\r\n`),
  ],
  [
    "an HTTP/1.1 request without Host",
    "400 malformed_request",
    () => "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n",
  ],
  ["an HTTP/1.0 request without Host", "200", () => "GET /healthz HTTP/1.0\r\n\r\n"],
  ["a method that is not a token", "400 malformed_request", () => "G@T /healthz HTTP/1.1\r\nHost: k\r\n\r\n"],
  ["a header name with a space", "400 malformed_request", () => get("/healthz", "X Bad: 1\r\n")],
  [
    "a header value with a control character",
    "400 malformed_request",
    () => get("/healthz", "X-Bad: a\x01b\r\n"),
  ],
  ["an unknown HTTP version", "400 malformed_request", () => "GET /healthz HTTP/9.9\r\nHost: k\r\n\r\n"],
  [
    "a Content-Length that is not a number",
    "400 malformed_request",
    () => ack("Content-Length: two\r\n", "{}"),
  ],
  [
    "two different Content-Lengths",
    "400 malformed_request",
    () => ack("Content-Length: 2\r\nContent-Length: 3\r\n", "{}"),
  ],
  [
    "Content-Length with Transfer-Encoding",
    "400 malformed_request",
    () => ack("Content-Length: 2\r\nTransfer-Encoding: chunked\r\n", "2\r\n{}\r\n0\r\n\r\n"),
  ],
  [
    "a chunk size that is not hex",
    "400 malformed_request",
    () => ack("Transfer-Encoding: chunked\r\n", "zz\r\n{}\r\n0\r\n\r\n"),
  ],
  [
    "an unknown transfer coding",
    "400 malformed_request",
    () => ack("Transfer-Encoding: gzip, chunked, zip\r\n", "0\r\n\r\n"),
  ],
  ["a folded header line", "400 malformed_request", () => get("/healthz", "X-A: a\r\n b\r\n")],
  ["the HTTP/2 preface", "400 malformed_request", () => "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"],
  ["bytes that are not HTTP", "400 malformed_request", () => "\x00\x01\x02\r\n\r\n"],
  ["a head not finished within the headers timeout", "408 request_timeout", () => get("/healthz"), 10],
  [
    "CONNECT",
    "404 route_not_found",
    () => "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
  ],
  [
    "a method no route has (PROPFIND)",
    "404 route_not_found",
    () => "PROPFIND /healthz HTTP/1.1\r\nHost: k\r\nConnection: close\r\n\r\n",
  ],
  [
    "Expect with an expectation other than 100-continue (ignored)",
    "200",
    () => get("/healthz", "Expect: tea\r\n"),
  ],
  [
    "a Content-Type that does not parse",
    "415 unsupported_media_type",
    () => ack("Content-Length: 2\r\n", "{}", ";;"),
  ],
];

const registry = loadErrorRegistry();

describe("answers below the routes", () => {
  it.each(cases)("answers %s with %s in the registry shape", async (_given, want, request, pauseAfter) => {
    const res = await exchange(port, request(), pauseAfter);
    if (want === "200") {
      expect(res.status).toBe(200);
      return;
    }
    const body = JSON.parse(res.body) as { code: string; message: string };
    expect(`${res.status} ${body.code}`).toBe(want);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(registry.get(body.code)?.status).toBe(res.status);
    expect(Object.keys(body).filter((k) => k !== "details")).toEqual(["code", "message"]);
    expect(res.body).not.toMatch(/FST_ERR|statusCode|zz|%ff|ppppp/);
  });

  it("keeps serving on other connections after each refusal", async () => {
    expect((await exchange(port, get("/healthz"))).status).toBe(200);
  });
});
