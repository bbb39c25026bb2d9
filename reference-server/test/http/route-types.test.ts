/**
 * The routes' request types come from the generated spec types: a route that reads a field the spec
 * does not have (as after a rename in TypeSpec) does not compile. Checked with the TypeScript compiler on
 * a virtual file beside the routes, so it resolves `@commonly/cap-spec` exactly as they do.
 */
import { join, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..", "..");
const fixture = join(root, "src", "http", "routes", "__route-types-fixture__.ts");

function diagnostics(body: string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (!config) throw new Error("no tsconfig");
  const host = ts.createCompilerHost(config.options);
  const source = `import type { FastifyInstance } from "fastify";\nimport type { AdminRoute, CapRoute } from "../route-types.js";\nexport function f(app: FastifyInstance) {\n${body}\n}\n`;
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) =>
    name === fixture ? ts.createSourceFile(name, source, lang) : getSourceFile(name, lang, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === fixture || fileExists(name);
  const program = ts.createProgram({
    rootNames: [fixture],
    options: { ...config.options, noEmit: true },
    host,
  });
  return ts
    .getPreEmitDiagnostics(program, program.getSourceFile(fixture))
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("route types from the spec", () => {
  it("type a CAP route's body, path parameters and defaulted query parameters", () => {
    const errors = diagnostics(`
      app.post<CapRoute<"/events/{id}/renew", "post">>("/events/:id/renew", async (req) => {
        const attempts: number = req.body.attempts;
        const id: string = req.params.id;
        return { attempts, id };
      });
      app.get<CapRoute<"/events", "get">>("/events", async (req) => {
        const limit: number = req.query.limit;
        const waitSeconds: number = req.query.waitSeconds;
        const pollId: string | undefined = req.query.pollId;
        return { limit, waitSeconds, pollId };
      });
      app.post<AdminRoute<"/pods/{podId}/members", "post">>("/pods/:podId/members", async (req) => ({
        podId: req.params.podId,
        userId: req.body.userId,
      }));`);
    expect(errors).toEqual([]);
  });

  it("fail to compile when a route reads a field the spec does not have", () => {
    const errors = diagnostics(`
      app.post<CapRoute<"/events/{id}/renew", "post">>("/events/:id/renew", async (req) => req.body.attempt);
      app.get<CapRoute<"/pods/{podId}/messages", "get">>("/pods/:podId/messages", async (req) => req.params.pod);
      app.post<AdminRoute<"/pods", "post">>("/pods", async (req) => req.body.title);`);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatch(/Property 'attempt' does not exist/);
    expect(errors[1]).toMatch(/Property 'pod' does not exist/);
    expect(errors[2]).toMatch(/Property 'title' does not exist/);
  });

  it("refuse an operation the spec does not define", () => {
    const errors = diagnostics(`
      type A = CapRoute<"/events/{id}/nudge", "post">;
      type B = CapRoute<"/events", "post">;
      type C = AdminRoute<"/pods", "put">;
      const all: [A, B, C] | undefined = undefined;
      void all;`);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatch(/'"\/events\/\{id\}\/nudge"' does not satisfy the constraint/);
    expect(errors[1]).toMatch(/'"post"' does not satisfy the constraint '"get"'/);
    expect(errors[2]).toMatch(/'"put"' does not satisfy the constraint/);
  });
});
