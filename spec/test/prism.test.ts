// The stateless mock: Prism (pinned in this package) serves every CAP route from the generated OpenAPI
// document — 401 without a token, and with one a response that validates against the JSON Schemas
// (checked with an independent validator).
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { registerSchema, validate } from "@hyperjump/json-schema/draft-2020-12";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";

const root = join(import.meta.dirname, "..");
const doc = parse(readFileSync(join(root, "generated", "cap-v1.openapi.yaml"), "utf8"));
const schemaDir = join(root, "generated", "json-schema");
const schemaId = (name: string) => `https://commonly.dev/schemas/cap/v1/${name}.json`;
const TOKEN = `cm_agent_${"ab".repeat(32)}`;

let prism: ChildProcess;
let base: string;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  for (const f of readdirSync(schemaDir))
    registerSchema(JSON.parse(readFileSync(join(schemaDir, f), "utf8")));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  prism = spawn(
    join(root, "node_modules", ".bin", "prism"),
    ["mock", "-h", "127.0.0.1", "-p", String(port), join(root, "generated", "cap-v1.openapi.yaml")],
    { stdio: "ignore" },
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await fetch(`${base}/api/agents/runtime/info`);
      return;
    } catch {
      if (Date.now() > deadline) throw new Error("prism did not start within 30 s");
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}, 40_000);

afterAll(() => {
  prism?.kill("SIGTERM");
});

interface Operation {
  requestBody?: { content?: Record<string, { schema: { $ref: string } }> };
  responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }>;
}
type Op = { method: string; path: string; op: Operation };
const ops: Op[] = Object.entries<Record<string, Operation>>(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ method, path, op })),
);

function requestFor({ method, path, op }: Op, token?: string): [string, RequestInit] {
  const url = base + path.replace(/\{[^}]+\}/g, "x1");
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  const init: RequestInit = { method: method.toUpperCase(), headers };
  const media = op.requestBody?.content?.["application/json"];
  if (media) {
    const ref: string = media.schema.$ref;
    const name = ref.split("/").pop()!;
    const schema = JSON.parse(readFileSync(join(schemaDir, `${name}.json`), "utf8"));
    headers["content-type"] = "application/json";
    init.body = JSON.stringify(schema.examples[0]);
  }
  return [url, init];
}

describe("Prism mock of the CAP OpenAPI document", () => {
  it("covers every operation", () => {
    expect(ops.length).toBe(12);
  });

  it.each(ops.map((o) => [`${o.method.toUpperCase()} ${o.path}`, o] as const))(
    "%s answers 401 without a token",
    async (_name, o) => {
      const res = await fetch(...requestFor(o));
      expect(res.status).toBe(401);
    },
  );

  it.each(ops.map((o) => [`${o.method.toUpperCase()} ${o.path}`, o] as const))(
    "%s answers a schema-valid example with a token",
    async (_name, o) => {
      const res = await fetch(...requestFor(o, TOKEN));
      const success = Object.keys(o.op.responses).find((s) => s.startsWith("2"))!;
      expect(String(res.status)).toBe(success);
      const name = o.op.responses[success].content["application/json"].schema.$ref.split("/").pop();
      const body = await res.json();
      const output = await validate(schemaId(name), body);
      expect(output.valid, `${name}: ${JSON.stringify(body)}`).toBe(true);
    },
  );
});
