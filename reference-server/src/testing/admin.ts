/**
 * Clients for a kernel's admin surface with a bearer token, as a human or an operator would use it.
 * `adminApi`: openapi-fetch typed by the types generated from spec/generated/kernel-admin.openapi.yaml (the
 * same construction as `@commonly/cap-sdk/admin`, which the kit cannot import: the SDK's tests use the kit).
 * `adminClient`: untyped JSON on any path, for tests that call a route by its literal URL.
 * Both throw on a non-2xx answer with the status and the kernel's `{code, message}` in the message.
 */
import type { paths } from "@commonly/cap-spec/types/admin";
import type { Client } from "openapi-fetch";
import { requireOptional } from "./optional.js";

export type AdminApi = Client<paths>;

/**
 * openapi-fetch's `createClient`: an optional peer of the kernel (only this kit uses it), loaded on first
 * use. The kit's starters call it before they start anything, so a missing package leaves no kernel behind.
 */
export function openapiFetch(): typeof import("openapi-fetch")["default"] {
  return requireOptional<typeof import("openapi-fetch")>(
    "openapi-fetch",
    "^0.17.0",
    "@commonly/cap-kernel/testing (its admin client)",
  ).default;
}

export function adminApi(baseUrl: string, token: string): AdminApi {
  const createClient = openapiFetch();
  const api = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${token}` } });
  api.use({
    async onResponse({ request, response }) {
      if (response.ok) return undefined;
      const path = new URL(request.url).pathname;
      throw new Error(`${request.method} ${path} → ${response.status} ${await response.text()}`);
    },
  });
  return api;
}

export interface AdminClient {
  // biome-ignore lint/suspicious/noExplicitAny: test code reads untyped JSON; callers may narrow with T.
  request<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  get<T = any>(path: string): Promise<T>;
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  post<T = any>(path: string, body?: unknown): Promise<T>;
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  put<T = any>(path: string, body?: unknown): Promise<T>;
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  patch<T = any>(path: string, body?: unknown): Promise<T>;
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  delete<T = any>(path: string): Promise<T>;
}

/** One answer of `call`: the status, the JSON body (null when empty), its raw text and the headers. */
export interface CallAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever shape the route answers.
  body: any;
  text: string;
  headers: Headers;
}

/** One bearer-token JSON request to `baseUrl + path` (`path` after the origin), whatever the status. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<CallAnswer> {
  const res = await fetch(baseUrl + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text; // not JSON (a proxy's page): the text itself
  }
  return { status: res.status, body: json, text, headers: res.headers };
}

/** `path` is the whole path after the origin (`/api/pods/…`). */
export function adminClient(baseUrl: string, token: string): AdminClient {
  async function request(method: string, path: string, body?: unknown) {
    const r = await call(baseUrl, method, path, token, body);
    if (r.status < 200 || r.status > 299) throw new Error(`${method} ${path} → ${r.status} ${r.text}`);
    return r.body;
  }
  return {
    request,
    get: (path) => request("GET", path),
    post: (path, body) => request("POST", path, body),
    put: (path, body) => request("PUT", path, body),
    patch: (path, body) => request("PATCH", path, body),
    delete: (path) => request("DELETE", path),
  };
}
