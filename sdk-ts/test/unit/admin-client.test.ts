import { describe, expect, it } from "vitest";
import { createAdminClient, unwrap } from "../../src/admin.js";
import { CapHttpError, CapSdkError } from "../../src/errors.js";
import { json, scriptedFetch } from "../helpers/fake-fetch.js";

const USER_TOKEN = `cm_user_${"cd".repeat(32)}`;
const user = { id: "usr_1", name: "ada", isAdmin: true, createdAt: "2026-11-29T18:00:00Z" };

describe("the admin client", () => {
  it("sends the user token and answers the typed body", async () => {
    const f = scriptedFetch(json(200, user));
    const admin = createAdminClient({ baseUrl: "http://kernel.test/", token: USER_TOKEN, fetch: f.fetch });
    const me = await unwrap(admin.GET("/api/users/me"));
    expect(me).toEqual(user);
    expect(f.requests[0]!.url).toBe("http://kernel.test/api/users/me");
    expect(f.requests[0]!.headers.get("authorization")).toBe(`Bearer ${USER_TOKEN}`);
    expect(f.requests[0]!.headers.get("user-agent")).toMatch(/^cap-sdk\//);
  });

  it("fills path and query parameters from the admin document's names", async () => {
    const f = scriptedFetch(json(200, { ok: true, uninstalled: true }));
    const admin = createAdminClient({ baseUrl: "http://kernel.test", token: USER_TOKEN, fetch: f.fetch });
    await admin.DELETE("/api/registry/pods/{podId}/agents/{agentName}", {
      params: { path: { podId: "pod 1", agentName: "echo" }, query: { instanceId: "i1" } },
    });
    expect(f.requests[0]!.method).toBe("DELETE");
    expect(f.requests[0]!.url).toBe("http://kernel.test/api/registry/pods/pod%201/agents/echo?instanceId=i1");
  });

  it("rejects a non-2xx answer with CapHttpError carrying the documented code, message and details", async () => {
    const body = {
      code: "validation_failed",
      message: "Bad body.",
      details: { errors: [{ path: "/name" }] },
    };
    const f = scriptedFetch(json(400, body, { "x-request-id": "req-9" }));
    const admin = createAdminClient({ baseUrl: "http://kernel.test", token: USER_TOKEN, fetch: f.fetch });
    const err = await admin.POST("/api/pods", { body: { name: "" } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CapHttpError);
    expect(err).toMatchObject({
      status: 400,
      code: "validation_failed",
      details: body.details,
      requestId: "req-9",
      operation: "POST /api/pods",
      body,
    });
    expect((err as Error).message).toContain("Bad body.");
  });

  it("names the HTTP status when the error body is not the documented shape", async () => {
    const f = scriptedFetch(new Response("<html>bad gateway</html>", { status: 502 }));
    const admin = createAdminClient({ baseUrl: "http://kernel.test", fetch: f.fetch });
    const err = await admin.GET("/api/pods").catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 502, code: "http_502", body: "<html>bad gateway</html>" });
  });

  it("turns no answer into CapSdkError network, and a slow answer into timeout", async () => {
    const down = createAdminClient({
      baseUrl: "http://kernel.test",
      fetch: scriptedFetch(new TypeError("fetch failed")).fetch,
    });
    const err = await down.GET("/api/users/me").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CapSdkError);
    expect(err).toMatchObject({ code: "network" });

    // Held like a real fetch holds its request in flight: undici's Request follows the caller's signal
    // through a WeakRef, so an unreferenced Request may be collected before the abort reaches it.
    const inFlight: Request[] = [];
    const never = (request: Request) =>
      new Promise<Response>((_, reject) => {
        inFlight.push(request);
        const fail = () => reject(request.signal.reason);
        if (request.signal.aborted) fail();
        else request.signal.addEventListener("abort", fail, { once: true });
      });
    const slow = createAdminClient({ baseUrl: "http://kernel.test", timeoutMs: 20, fetch: never });
    await expect(slow.GET("/api/users/me")).rejects.toMatchObject({ code: "timeout" });
    expect(inFlight).toHaveLength(1);
  });
});
