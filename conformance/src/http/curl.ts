/**
 * `curl` reproducers for failures. A fixture token is never printed: the HTTP client recorded it as
 * `<redacted:a>`, which becomes `${CAP_TOKEN_A}` here (export it from the fixture to replay). Deliberately
 * bad Authorization values are shown as sent: they are the point of the request, not secrets.
 */
import type { Exchange } from "./exchange.js";

export const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The environment variable a reproducer reads an agent's token from. */
export const tokenVariable = (as: string) => `CAP_TOKEN_${as.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;

const REDACTED = /<redacted:([^>]+)>/g;

/** Quote for the shell; redacted tokens become `${CAP_TOKEN_<LABEL>}` inside double quotes. */
function quoteWithTokens(s: string): string {
  if (!s.includes("<redacted:")) return shellQuote(s);
  const escaped = s.replace(/[\\"$`]/g, "\\$&");
  return `"${escaped.replace(REDACTED, (_, label: string) => `\${${tokenVariable(label)}}`)}"`;
}

export function curlFor(x: Exchange): string {
  const parts = ["curl", "-sS", "-i", "-X", x.method, shellQuote(x.url)];
  for (const [k, v] of Object.entries(x.requestHeaders)) {
    if (k === "accept") continue;
    parts.push("-H", quoteWithTokens(`${k}: ${v}`));
  }
  if (x.curlBody) parts.push("--data-binary", x.curlBody);
  else if (x.requestBody !== undefined) parts.push("--data-binary", quoteWithTokens(x.requestBody));
  return parts.join(" ");
}
