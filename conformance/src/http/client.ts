/**
 * The suite's HTTP client: plain fetch against the kernel's base URLs, in rotation (several `--url`s are
 * replicas of one kernel, so consecutive requests land on different replicas). Every exchange is recorded
 * (redacted) and handed to observers — the schema and error-shape auditors, the trace, the running check.
 * It never retries: a retry would hide exactly the behaviour a conformance suite exists to see.
 */
import { clip, type Exchange, redactSecrets } from "./exchange.js";

export interface RequestSpec {
  method: string;
  /** Path under the base URL, starting with `/`. */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** Sent as JSON unless `rawBody` is given. */
  body?: unknown;
  rawBody?: string;
  contentType?: string;
  /** A runtime token; `authorization` overrides it with a literal header value (or `null` for none). */
  token?: string;
  authorization?: string | null;
  headers?: Record<string, string>;
  /** Label recorded in place of the token (`a`, `b`, `c`, `no-header`, …). */
  as: string;
  timeoutMs?: number;
  /** Shell expression standing in for a huge body in the curl reproducer. */
  curlBody?: string;
  /** Pin to one URL index instead of rotating (`0` = the first `--url`). */
  urlIndex?: number;
}

function headersOf(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((v, k) => {
    out[k] = v;
  });
  return out;
}

export class NetworkError extends Error {
  override name = "NetworkError";
}

export type ExchangeObserver = (exchange: Exchange) => void;

export class HttpClient {
  private next = 0;
  private seq = 0;
  private readonly observers: ExchangeObserver[] = [];

  /** `secrets` maps each fixture token to the label that replaces it in every recorded exchange. */
  constructor(
    readonly urls: readonly string[],
    private readonly secrets: ReadonlyMap<string, string> = new Map(),
    private readonly defaultTimeoutMs = 15_000,
  ) {}

  observe(fn: ExchangeObserver): () => void {
    this.observers.push(fn);
    return () => this.observers.splice(this.observers.indexOf(fn), 1);
  }

  async send(spec: RequestSpec): Promise<Exchange> {
    const index = spec.urlIndex ?? this.next++ % this.urls.length;
    const base = this.urls[index % this.urls.length] as string;
    const url = new URL(base + spec.path);
    for (const [k, v] of Object.entries(spec.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: "application/json", ...spec.headers };
    const auth =
      spec.authorization === undefined ? (spec.token ? `Bearer ${spec.token}` : null) : spec.authorization;
    if (auth !== null) headers.authorization = auth;
    let body: string | undefined = spec.rawBody;
    if (body === undefined && spec.body !== undefined) body = JSON.stringify(spec.body);
    if (body !== undefined) headers["content-type"] = spec.contentType ?? "application/json";
    const startedAt = new Date();
    const t0 = performance.now();
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method: spec.method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: AbortSignal.timeout(spec.timeoutMs ?? this.defaultTimeoutMs),
        redirect: "manual",
      });
      text = await res.text();
    } catch (e) {
      const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message;
      throw new NetworkError(`${spec.method} ${url.href}: ${cause}`);
    }
    // Only fixture tokens are secrets; deliberately bad headers are recorded as sent.
    const redact = (v: string) => redactSecrets(v, this.secrets);
    const recordedHeaders = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, redact(v)]));
    let json: unknown;
    try {
      json = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    const exchange: Exchange = {
      seq: ++this.seq,
      as: spec.as,
      method: spec.method,
      url: url.href,
      requestHeaders: recordedHeaders,
      ...(body !== undefined ? { requestBody: redact(clip(body)) } : {}),
      ...(spec.curlBody ? { curlBody: spec.curlBody } : {}),
      status: res.status,
      responseHeaders: headersOf(res.headers),
      responseBody: redact(clip(text)),
      json,
      startedAt: startedAt.toISOString(),
      durationMs: Math.round(performance.now() - t0),
    };
    for (const o of [...this.observers]) o(exchange);
    return exchange;
  }
}
