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
 * Both folders share the kernel's origin, and the console keeps the human's API token in localStorage, so
 * each gets a Content-Security-Policy that lets nothing but this origin's own files run: no inline script,
 * no eval, no framing, nothing fetched from elsewhere. The docs pages load only their own scripts and
 * styles (Swagger UI included, served from the site's assets); its SVG icons are `data:` images.
 *
 * It also answers `/` with a page that points to both, the CAP base path and the quickstart commands, so a
 * person who opens the kernel's URL is not met by a JSON 404 (text or JSON for a client that does not ask
 * for HTML, e.g. curl). Its one inline style is allowed by its hash, nothing else inline.
 *
 * Must never: serve a file outside the two folders, or register anything but `/` outside the two prefixes.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync, statSync } from "node:fs";
import { dirname, extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

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

export interface HomeOptions {
  /** Default "CAP kernel". */
  name?: string;
  version?: string;
  /** Where CAP is served; default `/api/agents/runtime`. */
  capBasePath?: string;
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

/** Directives both folders share: this origin's own files only, never framed, no plugins, no <base>. */
const SAME_ORIGIN_ONLY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
];

/** The console's policy: its own code, talking to this kernel only. */
export const CONSOLE_CSP = SAME_ORIGIN_ONLY.join("; ");
/** The docs' policy: the same (Swagger UI's "Try it out" calls this origin, which connect-src allows). */
export const DOCS_CSP = SAME_ORIGIN_ONLY.join("; ");

const HOME_STYLE =
  "body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem}" +
  "pre{background:#f4f4f5;padding:.75rem;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}" +
  "@media (prefers-color-scheme:dark){body{background:#111;color:#eee}a{color:#8ab4ff}pre{background:#222}}";
/** The home page's policy: the docs' own, plus its one inline style by hash. */
export const HOME_CSP = SAME_ORIGIN_ONLY.map((d) =>
  d === "style-src 'self'"
    ? `style-src 'self' 'sha256-${createHash("sha256").update(HOME_STYLE).digest("base64")}'`
    : d,
).join("; ");

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What `/` says, in the three forms it answers. */
function homeContent(h: HomeOptions, origin: string, consolePath: string | null, docsPath: string | null) {
  const name = h.name ?? "CAP kernel";
  const title = h.version ? `${name} ${h.version}` : name;
  const cap = h.capBasePath ?? "/api/agents/runtime";
  const commands = [
    "# a kernel of your own with a demo pod, tokens printed and an echo driver",
    "npx -y @commonly/cap-kernel demo",
    "# a driver against this kernel (the SDK's echo example, in a clone, with an agent token)",
    `CAP_URL=${origin} CAP_TOKEN=cm_agent_… node examples/echo-ts/dist/echo.js`,
  ];
  const json = {
    name,
    ...(h.version ? { version: h.version } : {}),
    cap: { basePath: cap, info: `${cap}/info` },
    ...(consolePath ? { console: `${consolePath}/` } : {}),
    ...(docsPath ? { docs: `${docsPath}/` } : {}),
    health: "/readyz",
  };
  const text = [
    `${title}: CAP v1 under ${cap} (GET ${cap}/info with an agent token).`,
    ...(consolePath ? [`dev console  ${origin}${consolePath}/`] : []),
    ...(docsPath ? [`docs         ${origin}${docsPath}/`] : []),
    `health       ${origin}/readyz`,
    "",
    ...commands,
    "",
  ].join("\n");
  const link = (path: string, label: string, what: string) =>
    `<li><a href="${escapeHtml(path)}/">${label}</a> — ${what}</li>`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>
<style>${HOME_STYLE}</style></head><body>
<h1>${escapeHtml(title)}</h1>
<p>This server speaks CAP v1 under <code>${escapeHtml(cap)}</code>; a driver reads <code>${escapeHtml(cap)}/info</code> with its agent token.</p>
<ul>
${consolePath ? link(consolePath, "Dev console", "pods, messages, agents and their queues, as a human") : ""}
${docsPath ? link(docsPath, "Docs", "quickstarts, the protocol on one page, the API reference") : ""}
<li><a href="/readyz">/readyz</a> — is the store answering</li>
</ul>
<h2>Quickstart</h2>
<pre>${commands.map(escapeHtml).join("\n")}</pre>
</body></html>`;
  return { json, text, html };
}

function registerHome(
  app: FastifyInstance,
  home: HomeOptions,
  consolePath: string | null,
  docsPath: string | null,
) {
  app.get("/", { exposeHeadRoute: true }, async (req, reply) => {
    const origin = `${req.protocol}://${req.host}`;
    const body = homeContent(home, origin, consolePath, docsPath);
    reply
      .header("cache-control", "no-cache")
      .header("x-content-type-options", "nosniff")
      .header("vary", "accept");
    const accept = req.headers.accept ?? "";
    if (accept.includes("text/html"))
      return reply
        .type("text/html; charset=utf-8")
        .header("content-security-policy", HOME_CSP)
        .header("referrer-policy", "no-referrer")
        .send(body.html);
    if (accept.includes("application/json"))
      return reply.type("application/json; charset=utf-8").send(body.json);
    return reply.type("text/plain; charset=utf-8").send(body.text);
  });
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
