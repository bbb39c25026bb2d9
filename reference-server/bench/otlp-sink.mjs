#!/usr/bin/env node
/**
 * A collector stand-in for the bench: `node bench/otlp-sink.mjs PORT` accepts OTLP/HTTP trace exports on
 * 127.0.0.1 (`POST /v1/traces`, any encoding), reads and drops them, and answers `GET /stats` with
 * `{requests, bytes}`. A process of its own, so its CPU is not the kernel's nor the drivers'. Decodes
 * nothing: a collector's work is not the kernel's cost.
 * Must never listen beyond 127.0.0.1.
 */
import { createServer } from "node:http";

let requests = 0;
let bytes = 0;
const server = createServer((req, res) => {
  if (req.method === "GET" && req.url === "/stats") {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ requests, bytes }));
    return;
  }
  if (req.method !== "POST" || req.url !== "/v1/traces") {
    res.writeHead(404).end();
    return;
  }
  req.on("data", (chunk) => {
    bytes += chunk.length;
  });
  req.on("end", () => {
    requests++;
    // An empty ExportTraceServiceResponse: zero bytes in protobuf, `{}` in JSON.
    const json = String(req.headers["content-type"] ?? "").startsWith("application/json");
    res
      .writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" })
      .end(json ? "{}" : "");
  });
});
server.listen(Number(process.argv[2]), "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
