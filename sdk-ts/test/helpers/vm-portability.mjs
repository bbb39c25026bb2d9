// Loads the built root export into a node:vm context that has only web-platform globals (fetch,
// Request/Response/Headers/FormData, URL, AbortController, crypto, TextEncoder/TextDecoder, timers):
// no `process`, `Buffer`, `require`, and any `node:` import fails the link. Then it runs a CapClient
// call and a short runDriver against an in-context fake fetch and prints the outcome as JSON.
// Run with: node --experimental-vm-modules test/helpers/vm-portability.mjs <dist/index.js>
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import vm from "node:vm";

const entry = resolve(process.argv[2]);
const require = createRequire(join(import.meta.dirname, "..", "..", "package.json"));

const globals = {
  fetch,
  Request,
  Response,
  Headers,
  FormData,
  URL,
  URLSearchParams,
  AbortController,
  AbortSignal,
  Event,
  EventTarget,
  DOMException,
  crypto: globalThis.crypto,
  TextEncoder,
  TextDecoder,
  setTimeout,
  clearTimeout,
  structuredClone,
};
const context = vm.createContext({ ...globals });
const modules = new Map();

function resolveBare(specifier) {
  const pkgJson = require.resolve(`${specifier}/package.json`);
  const pkg = JSON.parse(readFileSync(pkgJson, "utf8"));
  const entryPoint =
    pkg.exports?.["."]?.import?.default ?? pkg.exports?.["."]?.import ?? pkg.module ?? pkg.main;
  return join(dirname(pkgJson), entryPoint);
}

async function load(path) {
  if (modules.has(path)) return modules.get(path);
  const module = new vm.SourceTextModule(readFileSync(path, "utf8"), { identifier: path, context });
  modules.set(path, module);
  return module;
}

async function link(specifier, referencing) {
  if (
    specifier.startsWith("node:") ||
    (!/^[./]/.test(specifier) && !specifier.includes("/") && specifier !== "openapi-fetch")
  )
    throw new Error(`the root export imports ${specifier} (from ${referencing.identifier})`);
  const path = specifier.startsWith(".")
    ? resolve(dirname(referencing.identifier), specifier)
    : resolveBare(specifier);
  return load(path);
}

const root = await load(entry);
await root.link(link);
await root.evaluate();
context.sdk = root.namespace;

const script = `
(async () => {
  const queue = [{ id: "evt_1", type: "mention.received", podId: "p", payload: { messageId: "m0", content: "hi" }, attempts: 1, createdAt: "2026-11-29T18:00:00Z" }];
  const seen = [];
  const fake = async (request) => {
    seen.push(request.method + " " + new URL(request.url).pathname);
    const path = new URL(request.url).pathname;
    const json = (status, body) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
    if (path.endsWith("/info")) return json(404, { code: "route_not_found", message: "no" });
    if (path.endsWith("/events")) return json(200, { events: queue.splice(0) });
    if (path.endsWith("/messages")) return json(201, { id: "m1", createdAt: "2026-11-29T18:00:01Z" });
    return json(200, { ok: true });
  };
  const client = new sdk.CapClient({ baseUrl: "http://kernel.invalid", token: "cm_agent_x", fetch: fake });
  const stop = new AbortController();
  const acks = [];
  const summary = await sdk.runDriver({
    client, signal: stop.signal, pollIntervalMs: 5, waitSeconds: 0,
    handle: async (event, ctx) => { await ctx.reply("echo " + event.payload.content); },
    onAck: (a) => { acks.push(a.result); stop.abort(); },
  });
  let brand = false;
  try { await client.ack("x", undefined, { signal: AbortSignal.abort() }); } catch (e) { brand = e instanceof sdk.CapSdkError && e.code === "aborted"; }
  return { summary, acks, seen, brand, hasProcess: typeof process !== "undefined", hasBuffer: typeof Buffer !== "undefined" };
})()`;
const result = await vm.runInContext(script, context);
process.stdout.write(JSON.stringify(result));
