/**
 * Clients for a kernel's admin surface with a bearer token, as a human or an operator would use it.
 * `adminApi`: openapi-fetch typed by the types generated from spec/generated/kernel-admin.openapi.yaml (the
 * same construction as `@commonly/cap-sdk/admin`, which the kit cannot import: the SDK's tests use the kit).
 * `adminClient`: untyped JSON on any path, for tests that call a route by its literal URL.
 * Both throw on a non-2xx answer with the status and the kernel's `{code, message}` in the message.
 */
import type { paths } from "@commonly/cap-spec/types/admin";
import { type Client } from "openapi-fetch";
export type AdminApi = Client<paths>;
export declare function adminApi(baseUrl: string, token: string): AdminApi;
export interface AdminClient {
    request<T = any>(method: string, path: string, body?: unknown): Promise<T>;
    get<T = any>(path: string): Promise<T>;
    post<T = any>(path: string, body?: unknown): Promise<T>;
    put<T = any>(path: string, body?: unknown): Promise<T>;
    delete<T = any>(path: string): Promise<T>;
}
/** One answer of `call`: the status, the JSON body (null when empty), its raw text and the headers. */
export interface CallAnswer {
    status: number;
    body: any;
    text: string;
    headers: Headers;
}
/** One bearer-token JSON request to `baseUrl + path` (`path` after the origin), whatever the status. */
export declare function call(baseUrl: string, method: string, path: string, token: string, body?: unknown): Promise<CallAnswer>;
/** `path` is the whole path after the origin (`/api/pods/…`). */
export declare function adminClient(baseUrl: string, token: string): AdminClient;
