/**
 * Routes read their caller through agentOf / userOf (src/http/callers.ts), typed as present inside the
 * plugin whose hook authenticated it, and answered 401 auth_required where no hook put one.
 */
import type { FastifyRequest } from "fastify";
import { describe, expect, it } from "vitest";
import { KernelError } from "../../src/errors/registry.js";
import { agentOf, userOf } from "../../src/http/callers.js";

const request = (fields: Partial<Pick<FastifyRequest, "agent" | "user">>) =>
  ({ agent: null, user: null, ...fields }) as FastifyRequest;

describe("a request's caller", () => {
  it("is the one its plugin's hook put on it", () => {
    const agent = { agentId: "agt_1" } as NonNullable<FastifyRequest["agent"]>;
    const user = { userId: "usr_1" } as NonNullable<FastifyRequest["user"]>;
    expect(agentOf(request({ agent }))).toBe(agent);
    expect(userOf(request({ user }))).toBe(user);
  });

  it.each([
    ["agentOf", agentOf],
    ["userOf", userOf],
  ])("is refused as auth_required by %s when no hook put one on the request", (_name, of) => {
    const err = (() => {
      try {
        of(request({}));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(KernelError);
    expect(err).toMatchObject({ code: "auth_required" });
  });
});
