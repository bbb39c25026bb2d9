/**
 * One HTTP request and its answer, as the suite saw it. Exchanges are what failures point at (a curl
 * reproducer is built from one) and what `--trace` records. Authorization values are redacted here, at
 * the moment of recording, so no report can ever contain a token.
 */
export interface Exchange {
  seq: number;
  check?: string;
  /** Which fixture agent's token was sent (`a`, `b`, `c`), or a description of the deliberate bad header. */
  as: string;
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  /** Shell expression that recreates a body too large to record. */
  curlBody?: string;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
  /** Parsed JSON body, `undefined` when the body is not JSON. */
  json: unknown;
  startedAt: string;
  durationMs: number;
}

/** The parts of an exchange a check looks at; typed `body` for convenience. */
export interface Answer<T = unknown> {
  status: number;
  body: T;
  headers: Record<string, string>;
  durationMs: number;
  exchange: Exchange;
}

const MAX_RECORDED = 8192;

export function clip(text: string, max = MAX_RECORDED): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** Replace every fixture token in `text` with `<redacted:LABEL>`. */
export function redactSecrets(text: string, secrets: ReadonlyMap<string, string>): string {
  let out = text;
  for (const [secret, label] of secrets) if (secret) out = out.split(secret).join(`<redacted:${label}>`);
  return out;
}
