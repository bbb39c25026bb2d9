import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultConsoleDir, registerConsoleAndDocs, resolveStaticFile } from "../src/serve.js";

const root = mkdtempSync(join(tmpdir(), "cap-console-serve-"));
const docs = join(root, "site");
mkdirSync(join(docs, "api"), { recursive: true });
writeFileSync(join(docs, "index.html"), "<h1>docs</h1>");
writeFileSync(join(docs, "api", "cap.openapi.json"), "{}");
writeFileSync(join(root, "secret.txt"), "outside the site");

const app = Fastify();
app.setNotFoundHandler((_req, reply) =>
  reply.code(404).send({ code: "route_not_found", message: "No such route." }),
);

beforeAll(async () => {
  await registerConsoleAndDocs(app, { docsDir: docs });
  await app.ready();
});
afterAll(() => app.close());

describe("registerConsoleAndDocs", () => {
  it("serves the console's index at /console/ with a same-origin content security policy", async () => {
    const res = await app.inject("/console/");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["content-security-policy"]).toContain("default-src 'self'");
    expect(res.body).toContain("<title>");
  });

  it("serves the docs with a same-origin policy that runs no inline script and nothing from elsewhere", async () => {
    const res = await app.inject("/docs/");
    expect(res.statusCode).toBe(200);
    const csp = res.headers["content-security-policy"] as string;
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ])
      expect(csp).toContain(directive);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*|https?:/);
  });

  it("answers HEAD on both folders even in an app that turned Fastify's automatic HEAD off", async () => {
    const strict = Fastify({ exposeHeadRoutes: false });
    await registerConsoleAndDocs(strict, { docsDir: docs });
    for (const url of ["/console/", "/docs/", "/docs/api/cap.openapi.json", "/console"]) {
      const get = await strict.inject(url);
      const head = await strict.inject({ method: "HEAD", url });
      expect([url, head.statusCode, head.body]).toEqual([url, get.statusCode, ""]);
      expect(head.headers["content-type"]).toBe(get.headers["content-type"]);
    }
    await strict.close();
  });

  it("redirects the bare prefixes to their slash form so relative links resolve", async () => {
    const res = await app.inject("/docs?x=1");
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe("/docs/?x=1");
    expect((await app.inject("/console")).headers.location).toBe("/console/");
  });

  it("serves nested files with their content type and answers HEAD", async () => {
    const res = await app.inject("/docs/api/cap.openapi.json");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    const head = await app.inject({ method: "HEAD", url: "/docs/index.html" });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe("");
  });

  it.each([
    "/docs/../secret.txt",
    "/docs/%2e%2e/secret.txt",
    "/docs/..%2fsecret.txt",
    "/docs/missing.html",
    "/console/../../package.json",
  ])("hands %s to the app's not-found handler", async (url) => {
    const res = await app.inject(url);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: "route_not_found", message: "No such route." });
  });

  it("refuses a path that is not valid percent-encoding", async () => {
    expect((await app.inject("/docs/%E0%A4%A")).statusCode).toBe(400);
  });

  it("explains how to build the docs when the site folder does not exist", async () => {
    const bare = Fastify();
    await registerConsoleAndDocs(bare, { docsDir: join(root, "nowhere"), consoleDir: false });
    const res = await bare.inject("/docs/");
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain("pnpm --filter @commonly/cap-docs build");
    expect((await bare.inject("/console/")).statusCode).toBe(404);
    await bare.close();
  });
});

describe("the home page at /", () => {
  it("answers a browser with a page linking the console, the docs and health, under a hash-pinned style", async () => {
    const res = await app.inject({
      url: "/",
      headers: { accept: "text/html,*/*;q=0.8", host: "k.test:7070" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    for (const href of ['href="/console/"', 'href="/docs/"', 'href="/readyz"'])
      expect(res.body).toContain(href);
    expect(res.body).toContain("<code>/api/agents/runtime</code>");
    expect(res.body).toContain("CAP_URL=http://k.test:7070 CAP_TOKEN=cm_agent_…");
    const csp = res.headers["content-security-policy"] as string;
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*|https?:/);
    const style = /<style>([^<]*)<\/style>/.exec(res.body)![1]!;
    const hash = createHash("sha256").update(style).digest("base64");
    expect(csp).toContain(`style-src 'self' 'sha256-${hash}'`);
    expect(res.body).not.toMatch(/<script|style="/);
  });

  it("answers curl (Accept: */*) with a few lines of text naming the URLs", async () => {
    const res = await app.inject({ url: "/", headers: { accept: "*/*", host: "127.0.0.1:7070" } });
    expect(res.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(res.body.split("\n")[0]).toBe(
      "CAP kernel: CAP v1 under /api/agents/runtime (GET /api/agents/runtime/info with an agent token).",
    );
    expect(res.body).toContain("dev console  http://127.0.0.1:7070/console/");
    expect(res.body).toContain("docs         http://127.0.0.1:7070/docs/");
    expect(res.body).toContain("npx -y @commonly/cap-kernel demo");
  });

  it("answers JSON to a client that asks for it, with the host's name and version", async () => {
    const named = Fastify();
    await registerConsoleAndDocs(named, { docsDir: false, home: { name: "cap-kernel", version: "9.9.9" } });
    const res = await named.inject({ url: "/", headers: { accept: "application/json" } });
    expect(res.json()).toEqual({
      name: "cap-kernel",
      version: "9.9.9",
      cap: { basePath: "/api/agents/runtime", info: "/api/agents/runtime/info" },
      console: "/console/",
      health: "/readyz",
    });
    const html = await named.inject({ url: "/", headers: { accept: "text/html" } });
    expect(html.body).toContain("<title>cap-kernel 9.9.9</title>");
    expect(html.body).not.toContain('href="/docs/"');
    expect((await named.inject({ method: "HEAD", url: "/" })).statusCode).toBe(200);
    await named.close();
  });

  it("leaves / to the host with home: false", async () => {
    const bare = Fastify();
    await registerConsoleAndDocs(bare, { docsDir: docs, home: false });
    expect((await bare.inject("/")).statusCode).toBe(404);
    await bare.close();
  });
});

describe("resolveStaticFile", () => {
  it.each([
    ["", join(docs, "index.html")],
    ["api/cap.openapi.json", join(docs, "api", "cap.openapi.json")],
    ["api/", null],
    ["../secret.txt", null],
    ["/../../secret.txt", null],
    ["a\0b", null],
  ])("maps %j to %j", (path, want) => {
    expect(resolveStaticFile(docs, path)).toBe(want);
  });

  it("finds the console's own index.html", () => {
    expect(resolveStaticFile(defaultConsoleDir, "")).toBe(join(defaultConsoleDir, "index.html"));
  });
});
