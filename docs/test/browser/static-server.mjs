/**
 * A tiny static file server for the browser tests: serves a folder under a URL prefix (the kernel serves the
 * site at /docs/, so the tests do too, which proves every link is relative). 127.0.0.1 only.
 */
import { createReadStream, existsSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, resolve, sep } from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".yaml": "application/yaml",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/plain; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
  ".py": "text/plain; charset=utf-8",
  ".sh": "text/plain; charset=utf-8",
  ".yml": "text/plain; charset=utf-8",
  ".tsp": "text/plain; charset=utf-8",
};

/** Resolves `urlPath` (already stripped of the prefix) inside `root`, or null when it escapes or is missing. */
export function resolveInside(root, urlPath) {
  const rel = normalize(decodeURIComponent(urlPath)).replace(/^([/\\])+/, "");
  const abs = resolve(root, rel);
  if (abs !== resolve(root) && !abs.startsWith(resolve(root) + sep)) return null;
  if (!existsSync(abs)) return null;
  const st = statSync(abs);
  if (st.isDirectory()) {
    const index = join(abs, "index.html");
    return existsSync(index) ? index : null;
  }
  return abs;
}

export async function startStaticServer(root, prefix = "/docs/") {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === prefix.replace(/\/$/, "")) {
      res.writeHead(301, { location: prefix }).end();
      return;
    }
    const file = url.pathname.startsWith(prefix)
      ? resolveInside(root, url.pathname.slice(prefix.length))
      : null;
    if (!file) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    createReadStream(file).pipe(res);
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}${prefix}`, close: () => new Promise((ok) => server.close(ok)) };
}
