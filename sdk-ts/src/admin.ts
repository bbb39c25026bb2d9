/**
 * `@commonly/cap-sdk/admin`: an openapi-fetch client for cap-kernel's admin surface (users, pods,
 * registry, runtime tokens, operator routes, join codes), typed by the types generated from
 * spec/generated/kernel-admin.openapi.yaml. Not CAP: drivers never need it; the CLI, the test kits and
 * operators' scripts do. Errors surface as the CAP client's do: a non-2xx answer rejects with
 * `CapHttpError` (`status`, the documented `code`, `message`, `details`), no answer with `CapSdkError`
 * (`network`, `timeout`, `aborted`). It never retries (most admin writes are not idempotent) and never
 * logs; like the root export it runs wherever `fetch` runs.
 */
import createClient, { type Client, type Middleware } from "openapi-fetch";
import { CapSdkError } from "./errors.js";
import type { components, operations, paths } from "./generated/kernel-admin.js";
import { linkSignals } from "./internal/client/time.js";
import { httpError } from "./internal/client/transport.js";
import { SDK_VERSION } from "./version.js";

export type { components as AdminComponents, operations as AdminOperations, paths as AdminPaths };
/** The admin surface's models by name (`User`, `Pod`, `Installation`, …). */
export type AdminSchemas = components["schemas"];
/** The admin client: openapi-fetch's `GET`/`POST`/`PUT`/`DELETE`, typed by the admin document's paths. */
export type AdminClient = Client<paths>;

export interface AdminClientOptions {
  /** The kernel's origin, e.g. `http://127.0.0.1:7070` (the admin paths start with `/api`). */
  baseUrl: string;
  /** A user API token (`cm_user_…`), sent as `Authorization: Bearer`; none for `POST /api/joins/redeem`. */
  token?: string;
  /** Per-request timeout in ms (default 30 000); past it the call rejects with `CapSdkError` `timeout`. */
  timeoutMs?: number;
  /** A `fetch` to use instead of `globalThis.fetch`. */
  fetch?: (request: Request) => Promise<Response>;
  /** Appended to `User-Agent: cap-sdk/<version>`. */
  userAgent?: string;
}

/** Turns every non-2xx answer into a `CapHttpError` carrying the kernel's `{code, message, details}`. */
const kernelErrors: Middleware = {
  async onResponse({ request, response, schemaPath }) {
    if (response.ok) return undefined;
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON (a proxy's page): the text is the message.
    }
    throw httpError(`${request.method} ${schemaPath}`, body, response);
  },
};

/** `fetch` with a timeout, whose failures (no HTTP answer) become `CapSdkError`s. */
function timedFetch(base: (request: Request) => Promise<Response>, timeoutMs: number) {
  return async (request: Request): Promise<Response> => {
    const operation = `${request.method} ${new URL(request.url).pathname}`;
    const timeout = new AbortController();
    // Rejects on its own too: a Request follows its signal only while something holds it, so a `fetch`
    // that drops the Request must not leave the call hanging.
    const timedOut = new Promise<never>((_, reject) => {
      timeout.signal.addEventListener("abort", () => reject(timeout.signal.reason), { once: true });
    });
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const { controller, dispose } = linkSignals(request.signal, timeout.signal);
    try {
      return await Promise.race([base(new Request(request, { signal: controller.signal })), timedOut]);
    } catch (err) {
      if (timeout.signal.aborted)
        throw new CapSdkError("timeout", `${operation} timed out after ${timeoutMs} ms`, { cause: err });
      if (request.signal.aborted) throw new CapSdkError("aborted", `${operation} aborted`, { cause: err });
      const reason = err instanceof Error ? err.message : String(err);
      throw new CapSdkError("network", `${operation} got no answer: ${reason}`, { cause: err });
    } finally {
      clearTimeout(timer);
      dispose();
    }
  };
}

/**
 * A typed client for the admin surface of one kernel:
 * `const { data } = await admin.GET("/api/pods/{podId}", { params: { path: { podId } } })`.
 */
export function createAdminClient(options: AdminClientOptions): AdminClient {
  if (!options.baseUrl) throw new TypeError("createAdminClient: baseUrl is required");
  const base = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers: {
      ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
      "User-Agent": `cap-sdk/${SDK_VERSION}${options.userAgent ? ` ${options.userAgent}` : ""}`,
      Accept: "application/json",
    },
    fetch: timedFetch(base, options.timeoutMs ?? 30_000),
  });
  client.use(kernelErrors);
  return client;
}

/**
 * The body of a call the client answered (errors reject before this), for code that wants the model
 * itself: `const me = await unwrap(admin.GET("/api/users/me"))`.
 */
export async function unwrap<T>(call: Promise<{ data?: T; response: Response }>): Promise<T> {
  const { data, response } = await call;
  if (data === undefined)
    throw new CapSdkError("invalid_response", `${response.status} answer without a JSON body`);
  return data;
}
