/**
 * Authentication: every CAP route refuses a request without a valid runtime token with 401 and the exact
 * registry code, and checks the token before it looks at anything else in the request.
 */
import { randomBytes } from "node:crypto";
import { demands } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import { capRoutes } from "./support.js";

const probe = async (
  ctx: CheckContext,
  requirement: string,
  authorization: string | null,
  label: string,
  code: string,
  headers: Record<string, string> = {},
) => {
  for (const route of capRoutes(ctx)) {
    const res = await ctx.send({
      method: route.method,
      path: route.path,
      ...(route.body !== undefined ? { body: route.body } : {}),
      authorization,
      headers,
      as: label,
    });
    ctx.expectError(
      requirement,
      res,
      401,
      code,
      `${route.method} ${route.path} with ${label} must be refused`,
    );
  }
};

const wellFormedUnknown = () => `cm_agent_${randomBytes(32).toString("hex")}`;

export const authChecks = [
  defineCheck({
    id: "auth.missing-token",
    family: "auth",
    title: "refuses a request without a Bearer Authorization header with 401 auth_required on every route",
    verifies: ["CAP-AUTH-1"],
    async run(ctx: CheckContext) {
      await probe(ctx, "CAP-AUTH-1", null, "no Authorization header", "auth_required");
      await probe(
        ctx,
        "CAP-AUTH-1",
        `Basic ${Buffer.from("a:b").toString("base64")}`,
        "a Basic header",
        "auth_required",
      );
    },
  }),
  defineCheck({
    id: "auth.legacy-header-refused",
    family: "auth",
    title:
      "refuses the production kernel's x-commonly-agent-token header without Authorization (401 auth_required)",
    verifies: ["CAP-AUTH-1"],
    async run(ctx: CheckContext) {
      // CAP v1 is `Authorization: Bearer` only (docs/CAP.md, differences from the production kernel).
      await probe(ctx, "CAP-AUTH-1", null, "only x-commonly-agent-token", "auth_required", {
        "x-commonly-agent-token": ctx.cast.a.token,
      });
    },
  }),
  defineCheck({
    id: "auth.malformed-token",
    family: "auth",
    title: "refuses a bearer value that is not cm_agent_ + 64 lowercase hex with 401 token_malformed",
    verifies: ["CAP-AUTH-2"],
    async run(ctx: CheckContext) {
      const hex = randomBytes(32).toString("hex");
      for (const bad of [
        "not-a-token",
        `cm_agent_${hex.slice(1)}`,
        `cm_agent_${hex.toUpperCase()}`,
        `${ctx.cast.a.token}0`,
      ])
        await probe(
          ctx,
          "CAP-AUTH-2",
          `Bearer ${bad}`,
          `malformed token ${bad.slice(0, 14)}…`,
          "token_malformed",
        );
    },
  }),
  defineCheck({
    id: "auth.unknown-token",
    family: "auth",
    title: "refuses a well-formed token it never issued with 401 token_unknown",
    verifies: ["CAP-AUTH-2"],
    async run(ctx: CheckContext) {
      const token = wellFormedUnknown();
      await probe(
        ctx,
        "CAP-AUTH-2",
        `Bearer ${token}`,
        `unknown token ${token.slice(0, 14)}…`,
        "token_unknown",
      );
    },
  }),
  defineCheck({
    id: "auth.revoked-token",
    family: "auth",
    title: "refuses a revoked token with 401 token_revoked",
    verifies: ["CAP-AUTH-2"],
    async run(ctx: CheckContext) {
      const revoked = ctx.run.settings.fixture.revokedToken;
      if (!revoked)
        ctx.incomplete("the fixture has no revokedToken (revoking a token needs the kernel's admin surface)");
      await probe(ctx, "CAP-AUTH-2", `Bearer ${revoked}`, "the fixture's revoked token", "token_revoked");
    },
  }),
  defineCheck({
    id: "auth.before-validation",
    family: "auth",
    title: "checks the token before the body or the parameters, so a bad token with a bad body gets 401",
    verifies: ["CAP-ERR-7"],
    async run(ctx: CheckContext) {
      const authorization = `Bearer ${wellFormedUnknown()}`;
      const cases = [
        {
          method: "POST",
          path: `/api/agents/runtime/pods/${ctx.cast.shared}/messages`,
          rawBody: "{not json",
        },
        { method: "PUT", path: "/api/agents/runtime/memory", rawBody: "{}", contentType: "text/plain" },
        {
          method: "POST",
          path: "/api/agents/runtime/memory/sync",
          body: { sections: { bogus: {} }, mode: "x" },
        },
        { method: "GET", path: "/api/agents/runtime/events", query: { limit: 999, waitSeconds: -1 } },
      ];
      for (const c of cases) {
        const res = await ctx.send({ ...c, authorization, as: "unknown token" });
        ctx.expectStatus(
          "CAP-ERR-7",
          res,
          401,
          `${c.method} ${c.path} with an unknown token and a bad request`,
        );
      }
      const none = await ctx.send({ ...cases[0]!, authorization: null, as: "no Authorization header" });
      ctx.expectStatus("CAP-ERR-7", none, 401, "malformed JSON without any token");
    },
  }),
  defineCheck({
    id: "auth.every-installed-pod",
    family: "auth",
    title: "lets an agent identity act in every pod where it is installed",
    verifies: ["CAP-AUTH-4"],
    async run(ctx: CheckContext) {
      for (const role of ["a", "b", "c"] as const) {
        const api = ctx.as(role);
        const pods = api.agent.pods.length > 0 ? api.agent.pods : [ctx.cast.shared];
        for (const pod of pods) {
          const res = await api.post(pod, {
            content: `conformance: ${api.name} may post here ${ctx.nonce()}`,
          });
          // A refusal breaks CAP-AUTH-4; an accepted post answered otherwise than 201 is CAP-MSG-1's.
          ctx.expectAccepted(
            "CAP-AUTH-4",
            res,
            `${api.name} posting into ${pod}, where it is installed`,
            demands.post,
          );
        }
      }
    },
  }),
];
