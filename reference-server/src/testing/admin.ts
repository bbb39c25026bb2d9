/**
 * A small JSON client for a kernel's HTTP surface with a bearer token: the admin API as a human or an
 * operator would use it, or any route. Failures throw with the kernel's `{code, message}` in the message.
 */
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
