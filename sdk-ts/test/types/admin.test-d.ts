import { describe, expectTypeOf, it } from "vitest";
import { type AdminSchemas, createAdminClient, unwrap } from "../../src/admin.js";

const admin = createAdminClient({ baseUrl: "http://127.0.0.1:7070", token: "cm_user_x" });

describe("admin client types", () => {
  it("answers the admin document's models", () => {
    expectTypeOf(unwrap(admin.GET("/api/users/me"))).resolves.toEqualTypeOf<AdminSchemas["User"]>();
    expectTypeOf<AdminSchemas["User"]["isAdmin"]>().toBeBoolean();
  });

  it("types the cancel of a pod's event and an installation's double-texting policy (feature cancel)", () => {
    const cancel = admin.POST("/api/pods/{podId}/events/{eventId}/cancel", {
      params: { path: { podId: "pod_1", eventId: "evt_1" } },
      body: { reason: "wrong repository" },
    });
    expectTypeOf(unwrap(cancel)).resolves.toHaveProperty("changed").toBeBoolean();
    void admin.PATCH("/api/registry/pods/{podId}/agents/{agentName}", {
      params: { path: { podId: "pod_1", agentName: "echo" } },
      body: { doubleTexting: "interrupt" },
    });
    void admin.PATCH("/api/registry/pods/{podId}/agents/{agentName}", {
      params: { path: { podId: "pod_1", agentName: "echo" } },
      // @ts-expect-error the policies are enqueue and interrupt
      body: { doubleTexting: "coalesce" },
    });
  });

  it("rejects unknown paths, missing parameters and wrong bodies", () => {
    // @ts-expect-error no such admin route
    void admin.GET("/api/nope");
    // @ts-expect-error podId is required
    void admin.GET("/api/pods/{podId}", { params: { path: {} } });
    // @ts-expect-error name must be a string
    void admin.POST("/api/pods", { body: { name: 5 } });
    // @ts-expect-error the field is `name`, not `title`: a renamed field in TypeSpec breaks callers
    void admin.POST("/api/pods", { body: { title: "x" } });
    void admin.POST("/api/pods", { body: { name: "x" } });
  });
});
