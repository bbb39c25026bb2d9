/**
 * A Fastify plugin that serves two static folders: the dev console at `/console/` and the built docs site
 * at `/docs/`. The kernel wires it with one call: `await registerConsoleAndDocs(app)`.
 *
 * Self-contained (no @fastify/static): GET and HEAD only (HEAD asked for per route, since a host app may
 * turn Fastify's automatic HEAD off, as the kernel did), no directory listings, paths resolved inside their
 * folder (no `..` escape, no symlink-free guarantee needed: the folders are the project's own build output),
 * `nosniff`, HTML never cached. A missing file goes to the app's own not-found handler, so the kernel's
 * JSON 404 shape is kept. The docs site is the copy this package carries (`docs-site/`, put there when it is
 * packed: scripts/bundle-docs.mjs) unless the host passes another folder; a clone has no copy, so the kernel
 * is given the repository's `docs/site` (`--docs-dir`). A folder without `index.html` gets a page saying how
 * to build the site.
 *
 * Each folder gets its Content-Security-Policy (`csp.ts`); `/` is `home.ts`.
 *
 * Must never: serve a file outside the two folders, or register anything but `/` outside the two prefixes.
 */
import { createReadStream, existsSync, statSync } from "node:fs";
import { dirname, extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { CONSOLE_CSP, DOCS_CSP } from "./csp.js";
import { type HomeOptions, registerHome } from "./home.js";

const here = dirname(fileURLToPath(import.meta.url));

/** The console's static files (this package's `public/`). */
export const defaultConsoleDir = resolve(here, "..", "public");
/**
 * The docs site this package carries: `docs-site/`, copied from the repository's built `docs/site` when the
 * package is packed (the docs package is private, and an installed kernel must still answer `/docs/`).
 * Absent in a clone until a pack; pass the repository's `docs/site` as `docsDir` there.
 */
export const defaultDocsDir = resolve(here, "..", "docs-site");

export interface ConsoleAndDocsOptions {
  /** Folder of the built docs site; default {@link defaultDocsDir}. `false` to not serve docs. */
  docsDir?: string | false;
  /** Folder of the console; default {@link defaultConsoleDir}. `false` to not serve the console. */
  consoleDir?: string | false;
  /** Default `/docs`. */
  docsPrefix?: string;
  /** Default `/console`. */
  consolePrefix?: string;
  /** What `/` names (the host's name and version); `false` to leave `/` to the host. */
  home?: HomeOptions | false;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".yaml": "application/yaml; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/plain; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
  ".py": "text/plain; charset=utf-8",
  ".sh": "text/plain; charset=utf-8",
  ".yml": "text/plain; charset=utf-8",
  ".tsp": "text/plain; charset=utf-8",
  ".map": "application/json; charset=utf-8",
};

/**
 * Maps a URL path below a prefix to a file inside `root`, or `null` when it would leave `root`, does not
 * exist, or is a directory without `index.html`. Exported for tests.
 */
export function resolveStaticFile(root: string, urlPath: string): string | null {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (rel.includes("\0")) return null;
  const base = resolve(root);
  const abs = resolve(base, `.${sep}${rel.replace(/^[/\\]+/, "")}`);
  if (abs !== base && !abs.startsWith(base + sep)) return null;
  if (!existsSync(abs)) return null;
  const st = statSync(abs);
  if (st.isDirectory()) {
    const index = join(abs, "index.html");
    return existsSync(index) ? index : null;
  }
  return st.isFile() ? abs : null;
}

const NOT_BUILT = (
  prefix: string,
) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Docs not built</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;line-height:1.5">
<h1>The docs site is not built</h1>
<p>This server serves the CAP docs at <code>${prefix}/</code> from a folder that holds no built site.
Installed from npm, the site ships inside <code>@commonly/cap-console</code>. In a clone of the repository,
build it from the root and point the kernel at it:</p>
<pre>pnpm --filter @commonly/cap-docs build
cap-kernel serve --docs-dir docs/site    # or CAP_DOCS_DIR=docs/site</pre>
<p>The docs are also readable as markdown: <a href="https://github.com/commonly-ai/cap/tree/main/docs">github.com/commonly-ai/cap/tree/main/docs</a>.</p></body></html>`;

function serveFolder(
  app: FastifyInstance,
  prefix: string,
  root: string,
  extraHeaders: Record<string, string>,
) {
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const rest = (req.params as { "*"?: string })["*"] ?? "";
    if (!existsSync(join(root, "index.html"))) {
      return reply.code(404).type("text/html; charset=utf-8").send(NOT_BUILT(prefix));
    }
    const file = resolveStaticFile(root, rest);
    if (!file) return reply.callNotFound();
    const type = TYPES[extname(file).toLowerCase()] ?? "application/octet-stream";
    reply
      .type(type)
      .header("x-content-type-options", "nosniff")
      .header("cache-control", type.startsWith("text/html") ? "no-cache" : "public, max-age=300")
      .header("content-length", statSync(file).size);
    for (const [k, v] of Object.entries(extraHeaders)) reply.header(k, v);
    return reply.send(createReadStream(file));
  };
  // `/docs` → `/docs/` so that the site's relative links resolve under the prefix.
  app.get(prefix, { exposeHeadRoute: true }, async (req, reply) => {
    const query = req.url.includes("?") ? req.url.slice(req.url.indexOf("?")) : "";
    return reply.redirect(`${prefix}/${query}`, 301);
  });
  app.get(`${prefix}/*`, { exposeHeadRoute: true }, handler);
}

/**
 * Registers `GET /console/*` and `GET /docs/*` (and the bare prefixes, redirected to the slash form) and
 * `GET /` (unless `home: false`) on `app`. Call it before `app.listen()`; it registers plain routes, so it is not encapsulated.
 */
export async function registerConsoleAndDocs(app: FastifyInstance, options: ConsoleAndDocsOptions = {}) {
  const consoleDir = options.consoleDir === undefined ? defaultConsoleDir : options.consoleDir;
  const docsDir = options.docsDir === undefined ? defaultDocsDir : options.docsDir;
  if (consoleDir !== false) {
    serveFolder(app, options.consolePrefix ?? "/console", resolve(consoleDir), {
      "content-security-policy": CONSOLE_CSP,
      "referrer-policy": "no-referrer",
    });
  }
  if (docsDir !== false) {
    serveFolder(app, options.docsPrefix ?? "/docs", resolve(docsDir), {
      "content-security-policy": DOCS_CSP,
      "referrer-policy": "no-referrer",
    });
  }
  if (options.home !== false)
    registerHome(
      app,
      options.home ?? {},
      consoleDir === false ? null : (options.consolePrefix ?? "/console"),
      docsDir === false ? null : (options.docsPrefix ?? "/docs"),
    );
}
