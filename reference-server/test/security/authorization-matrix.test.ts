/**
 * The authorization matrix (issue 30): every route of the CAP and admin OpenAPI documents × every kind of
 * caller → the exact answer, on SQLite and (with CAP_TEST_PG_URL) PostgreSQL. The route list is read from
 * the two documents and from the routes the app registered, so a route without a row, a row without a
 * route, or a route the app serves but the documents lack fails the run. Each cell also checks that an
 * outsider's answer holds nothing of pod A's (MARKER).
 *
 * Must never reach past the HTTP surface to build its world (authorization-world.ts) nor let one cell's
 * request change another's expectation (mutating rows make a fresh target per cell).
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildApp, type KernelApp } from "../../src/http/app.js";
import type { Store } from "../../src/store/contract.js";
import { openPostgresStore } from "../../src/store/postgres/index.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { toTemplate } from "../helpers/openapi.js";
import { ROWS, type Row, type Want } from "./authorization-rows.js";
import {
  buildMatrixWorld,
  CALLER_KINDS,
  type CallerKind,
  MARKER,
  type MatrixWorld,
} from "./authorization-world.js";

type Surface = "cap" | "admin";
interface DocumentedRoute {
  surface: Surface;
  /** Declares an empty security requirement: the route authenticates nobody. */
  open: boolean;
}

const require = createRequire(import.meta.url);
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/** `METHOD /template` → how the documents describe it. */
function documentedRoutes(): Map<string, DocumentedRoute> {
  const out = new Map<string, DocumentedRoute>();
  for (const [surface, file] of [
    ["cap", "cap-v1.openapi.yaml"],
    ["admin", "kernel-admin.openapi.yaml"],
  ] as const) {
    type Op = { security?: Record<string, unknown>[] };
    const doc = parse(readFileSync(require.resolve(`@commonly/cap-spec/${file}`), "utf8")) as {
      security?: Op["security"];
      paths: Record<string, Record<string, Op>>;
    };
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) {
        if (!METHODS.includes(method)) continue;
        const security = op.security ?? doc.security ?? [];
        out.set(`${method.toUpperCase()} ${path}`, {
          surface,
          open: security.length === 0 || security.some((s) => Object.keys(s).length === 0),
        });
      }
  }
  return out;
}

/** Every `METHOD /template` the app registered, read from Fastify's route tree. */
function registeredRoutes(app: KernelApp): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split("\n")) {
    const m = /^((?:│ {3}| {4})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = (m[1] ?? "").length / 4;
    const path = (stack[depth - 1] ?? "") + m[2];
    stack.length = depth;
    stack.push(path);
    for (const method of m[3]?.split(", ") ?? []) out.push(`${method} ${path}`);
  }
  return out;
}

/** Outside /api the app serves the home page, operations probes and static files only, none of them behind a token. */
const NOT_API = /^(GET \/|GET \/(healthz|readyz|metrics)|(GET|HEAD) \/(console|docs)(\/.*|\*)?)$/;

/** The answers a surface gives every route, whatever the row: bad tokens, and the other surface's tokens. */
function implied({ surface, open }: DocumentedRoute): Want {
  if (open) return {};
  const bad = { none: "401 auth_required", malformed: "401 token_malformed", revoked: "401 token_revoked" };
  // A token of the other surface's kind fails the format check, whoever holds it.
  const m = "401 token_malformed";
  return surface === "cap"
    ? { ...bad, otherPodHuman: m, podMember: m, podAdmin: m, identityOwner: m, operator: m }
    : { ...bad, otherPodAgent: m, agent: m };
}

/** Callers with no business in pod A: nothing of it may appear in their answers. */
const OUTSIDERS: CallerKind[] = ["none", "malformed", "revoked", "otherPodHuman", "otherPodAgent"];

const DOCUMENTED = documentedRoutes();
const rowKey = (r: Row) => `${r.route} — ${r.given}`;
const wantOf = (r: Row): Want => ({ ...implied(DOCUMENTED.get(r.route)!), ...r.want });

const templateRegex = (template: string) => new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`);

async function runCell(w: MatrixWorld, row: Row, kind: CallerKind): Promise<string> {
  const [method, template] = row.route.split(" ") as [string, string];
  const { url, body } = await row.request(w);
  const path = url.split("?")[0] ?? url;
  if (!templateRegex(template).test(path)) return `request ${path} is not ${template}`;
  const route = DOCUMENTED.get(row.route)!;
  const res = await w.call(w.tokenOf(kind, route.surface), method, url, body);
  let seen: string;
  try {
    seen = row.observe
      ? row.observe(res)
      : res.statusCode < 300
        ? String(res.statusCode)
        : `${res.statusCode} ${res.json().code}`;
  } catch {
    seen = `${res.statusCode} (not the error shape: ${res.body.slice(0, 80)})`;
  }
  return OUTSIDERS.includes(kind) && res.body.includes(MARKER) ? `${seen} LEAKS POD A` : seen;
}

describe("the authorization matrix covers exactly the documented routes", () => {
  it("has a row for every route of the two OpenAPI documents, and none for a route they lack", () => {
    const rowed = new Set(ROWS.map((r) => r.route));
    expect({
      documentedWithoutRow: [...DOCUMENTED.keys()].filter((r) => !rowed.has(r)),
      rowsForUndocumentedRoutes: [...rowed].filter((r) => !DOCUMENTED.has(r)),
      rowsRepeated: ROWS.length - new Set(ROWS.map(rowKey)).size,
    }).toEqual({ documentedWithoutRow: [], rowsForUndocumentedRoutes: [], rowsRepeated: 0 });
  });

  it("gives every row an answer for each caller kind, none restating what its surface implies", () => {
    for (const row of ROWS) {
      const route = DOCUMENTED.get(row.route);
      if (!route) continue; // reported by the test above
      const restated = Object.keys(row.want).filter((k) => k in implied(route));
      expect({ row: rowKey(row), restated }).toEqual({ row: rowKey(row), restated: [] });
      const missing = CALLER_KINDS.filter((k) => !(k in wantOf(row)));
      expect({ row: rowKey(row), missing }).toEqual({ row: rowKey(row), missing: [] });
    }
  });

  it("finds every route the app registers under /api in the documents, and outside /api only the home page, probes and static files", async () => {
    const app = await buildApp({ store: openSqliteStore({ path: ":memory:" }), logger: false });
    try {
      const registered = registeredRoutes(app);
      // The tree reading is itself checked: each route it found is one the app answers.
      for (const r of registered.filter((x) => !x.includes("*"))) {
        const [method, url] = r.split(" ") as [string, string];
        expect({ r, known: app.hasRoute({ method: method as "GET", url }) }).toEqual({ r, known: true });
      }
      // A HEAD twin of a GET runs the GET's hooks and handler (head-routes.test.ts): its GET's row covers it.
      const templates = registered
        .filter((r) => !(r.startsWith("HEAD ") && registered.includes(`GET ${r.slice(5)}`)))
        .map((r) => {
          const [method, url] = r.split(" ") as [string, string];
          return `${method} ${toTemplate(url)}`;
        });
      const api = templates.filter((r) => r.split(" ")[1]?.startsWith("/api/"));
      expect({
        servedUndocumented: api.filter((r) => !DOCUMENTED.has(r)),
        documentedUnserved: [...DOCUMENTED.keys()].filter((r) => !api.includes(r)),
        unexpectedOutsideApi: templates.filter(
          (r) => !r.split(" ")[1]?.startsWith("/api/") && !NOT_API.test(r),
        ),
      }).toEqual({ servedUndocumented: [], documentedUnserved: [], unexpectedOutsideApi: [] });
    } finally {
      await app.close();
    }
  });
});

function matrix(name: string, open: () => Promise<Store>) {
  describe(`every route × every caller kind on ${name}`, () => {
    let w: MatrixWorld;
    beforeAll(async () => {
      w = await buildMatrixWorld(await open());
    });
    afterAll(async () => {
      await w?.app.close();
      await w?.store.close();
    });

    for (const row of ROWS)
      it.skipIf(!DOCUMENTED.has(row.route))(
        `answers ${row.route} (${row.given}) as the matrix says for each caller kind`,
        async () => {
          const seen: Partial<Record<CallerKind, string>> = {};
          for (const kind of CALLER_KINDS) seen[kind] = await runCell(w, row, kind);
          expect(seen).toEqual(wantOf(row));
        },
      );
  });
}

matrix("SQLite", async () => openSqliteStore({ path: ":memory:" }));

const PG_URL = process.env.CAP_TEST_PG_URL;
const schemas: string[] = [];
describe.skipIf(!PG_URL)(
  `the matrix on PostgreSQL${PG_URL ? "" : " (skipped: CAP_TEST_PG_URL not set — .ci/run starts PostgreSQL)"}`,
  () => {
    matrix("PostgreSQL", async () => {
      const schema = `cap_authz_${randomBytes(5).toString("hex")}`;
      schemas.push(schema);
      return openPostgresStore({ url: PG_URL!, schema });
    });
    afterAll(async () => {
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
      await admin.end();
    });
  },
);
