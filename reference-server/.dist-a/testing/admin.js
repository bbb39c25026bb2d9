import createClient from "openapi-fetch";
export function adminApi(baseUrl, token) {
    const api = createClient({ baseUrl, headers: { authorization: `Bearer ${token}` } });
    api.use({
        async onResponse({ request, response }) {
            if (response.ok)
                return undefined;
            const path = new URL(request.url).pathname;
            throw new Error(`${request.method} ${path} → ${response.status} ${await response.text()}`);
        },
    });
    return api;
}
/** One bearer-token JSON request to `baseUrl + path` (`path` after the origin), whatever the status. */
export async function call(baseUrl, method, path, token, body) {
    const res = await fetch(baseUrl + path, {
        method,
        headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let json = null;
    try {
        json = text ? JSON.parse(text) : null;
    }
    catch {
        json = text; // not JSON (a proxy's page): the text itself
    }
    return { status: res.status, body: json, text, headers: res.headers };
}
/** `path` is the whole path after the origin (`/api/pods/…`). */
export function adminClient(baseUrl, token) {
    async function request(method, path, body) {
        const r = await call(baseUrl, method, path, token, body);
        if (r.status < 200 || r.status > 299)
            throw new Error(`${method} ${path} → ${r.status} ${r.text}`);
        return r.body;
    }
    return {
        request,
        get: (path) => request("GET", path),
        post: (path, body) => request("POST", path, body),
        put: (path, body) => request("PUT", path, body),
        delete: (path) => request("DELETE", path),
    };
}
//# sourceMappingURL=admin.js.map