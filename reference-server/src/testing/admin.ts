/**
 * Clients for a kernel's admin surface with a bearer token, as a human or an operator would use it.
 * `adminApi`: openapi-fetch typed by the types generated from spec/generated/kernel-admin.openapi.yaml (the
 * same construction as `@commonly/cap-sdk/admin`, which the kit cannot import: the SDK's tests use the kit).
 * `adminClient`: untyped JSON on any path, for tests that call a route by its literal URL.
 * Both throw on a non-2xx answer with the status and the kernel's `{code, message}` in the message.
 */
import type { paths } from "@commonly/cap-spec/types/admin";
import createClient, { type Client } from "openapi-fetch";

export type AdminApi = Client<paths>;

export function adminApi(baseUrl: string, token: string): AdminApi {
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
  delete<T = any>(path: string): Promise<T>;
}

/** `path` is the whole path after the origin (`/api/pods/…`). */
export function adminClient(baseUrl: string, token: string): AdminClient {
  async function request(method: string, path: string, body?: unknown) {
    const res = await fetch(baseUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  }
  return {
    request,
    get: (path) => request("GET", path),
    post: (path, body) => request("POST", path, body),
    put: (path, body) => request("PUT", path, body),
    delete: (path) => request("DELETE", path),
  };
}
