/**
 * `GET /` on the kernel: a page that points to the console, the docs, the CAP base path and the quickstart
 * commands, so a person who opens the kernel's URL is not met by a JSON 404 (text or JSON for a client that
 * does not ask for HTML, e.g. curl). Its one inline style is allowed by its hash, nothing else inline.
 */
import { createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { SAME_ORIGIN_ONLY } from "./csp.js";

export interface HomeOptions {
  /** Default "CAP kernel". */
  name?: string;
  version?: string;
  /** Where CAP is served; default `/api/agents/runtime`. */
  capBasePath?: string;
}

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

export function registerHome(
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
