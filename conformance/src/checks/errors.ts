/**
 * Errors: unknown routes are 404 route_not_found (token or not), bodies that are not JSON, not JSON-typed,
 * too large or off-schema get their registry codes, and — audited over the whole run — every non-2xx
 * answer has the documented shape with a registered code sent with its registered status.
 */
import { R } from "../agents.js";
import { defineCheck } from "../check.js";
import type { CheckContext } from "../context.js";
import type { Answer } from "../http/exchange.js";

function expectDetails(ctx: CheckContext, res: Answer, what: string): void {
  const errors = (res.body as { details?: { errors?: unknown } } | undefined)?.details?.errors;
  ctx.expect(
    "CAP-ERR-5",
    Array.isArray(errors) &&
      errors.length > 0 &&
      errors.every((e) => typeof e?.path === "string" && typeof e?.message === "string"),
    {
      message: `${what}: validation_failed without details.errors [{path, message}]`,
      actual: res.body,
      exchange: res,
    },
  );
}

export const errorChecks = [
  defineCheck({
    id: "errors.unknown-route",
    family: "errors",
    title:
      "answers an unknown path or method under the base path with 404 route_not_found, with or without a token",
    verifies: ["CAP-ERR-6"],
    async run(ctx: CheckContext) {
      const a = ctx.as("a");
      const cases: [string, string][] = [
        ["GET", `${R}/no-such-route`],
        ["GET", `${R}/v2/events`],
        ["DELETE", `${R}/memory`],
        ["PATCH", `${R}/events`],
        ["GET", `${R}/events/evt_conformance/ack`],
      ];
      for (const [method, path] of cases) {
        const res = await a.bare(method, path);
        ctx.expectError("CAP-ERR-6", res, 404, "route_not_found", `${method} ${path} with a valid token`);
      }
      const anon = await ctx.send({
        method: "GET",
        path: `${R}/no-such-route`,
        authorization: null,
        as: "no Authorization header",
      });
      ctx.expectError("CAP-ERR-6", anon, 404, "route_not_found", "an unknown route without a token");
    },
  }),
  defineCheck({
    id: "errors.malformed-json",
    family: "errors",
    title: "answers a body that is not valid JSON with 400 malformed_json",
    verifies: ["CAP-ERR-2"],
    async run(ctx: CheckContext) {
      const a = ctx.as("a");
      const cases: [string, string][] = [
        ["POST", `${R}/pods/${encodeURIComponent(ctx.cast.shared)}/messages`],
        ["PUT", `${R}/memory`],
        ["POST", `${R}/memory/sync`],
      ];
      for (const [method, path] of cases) {
        const res = await a.bare(method, path, {
          rawBody: '{"content": "conformance',
          contentType: "application/json",
        });
        ctx.expectError(
          "CAP-ERR-2",
          res,
          400,
          "malformed_json",
          `${method} ${path} with a truncated JSON body`,
        );
      }
    },
  }),
  defineCheck({
    id: "errors.unsupported-media-type",
    family: "errors",
    title: "answers a body whose Content-Type is not application/json with 415 unsupported_media_type",
    verifies: ["CAP-ERR-3"],
    async run(ctx: CheckContext) {
      const a = ctx.as("a");
      const msg = await a.bare("POST", `${R}/pods/${encodeURIComponent(ctx.cast.shared)}/messages`, {
        rawBody: JSON.stringify({ content: `conformance ${ctx.nonce()}` }),
        contentType: "text/plain",
      });
      ctx.expectError("CAP-ERR-3", msg, 415, "unsupported_media_type", "a post sent as text/plain");
      const mem = await a.bare("PUT", `${R}/memory`, {
        rawBody: "content=conformance",
        contentType: "application/x-www-form-urlencoded",
      });
      ctx.expectError("CAP-ERR-3", mem, 415, "unsupported_media_type", "a memory PUT sent as a form");
    },
  }),
  defineCheck({
    id: "errors.body-too-large",
    family: "errors",
    title: "answers a body over the kernel's body limit with 413 body_too_large",
    verifies: ["CAP-ERR-4"],
    async run(ctx: CheckContext) {
      const limit = ctx.run.settings.fixture.bodyLimitBytes ?? 1_048_576;
      if (ctx.run.settings.fixture.bodyLimitBytes === undefined)
        ctx.note("body limit assumed to be 1 MiB (fixture bodyLimitBytes)");
      const size = limit + 1024;
      const res = await ctx.as("a").putMemory(
        { sections: { soul: { content: "x".repeat(size) } } },
        {
          curlBody: `"$(node -e 'process.stdout.write(JSON.stringify({sections:{soul:{content:"x".repeat(${size})}}}))')"`,
        },
      );
      ctx.expectError("CAP-ERR-4", res, 413, "body_too_large", `a ${size}-byte memory PUT (limit ${limit})`);
    },
  }),
  defineCheck({
    id: "errors.validation-details",
    family: "errors",
    title: "answers an off-schema body with 400 validation_failed listing {path, message} for each problem",
    verifies: ["CAP-ERR-5"],
    async run(ctx: CheckContext) {
      const a = ctx.as("a");
      const cases: [string, Promise<Answer>][] = [
        ["a memory section whose content is a number", a.putMemory({ sections: { soul: { content: 5 } } })],
        ["a sync with an unknown mode", a.sync({ sections: {}, mode: "sideways" })],
        [
          "a post whose metadata is a string",
          a.post(ctx.cast.shared, { content: `conformance ${ctx.nonce()}`, metadata: "kind" }),
        ],
      ];
      for (const [what, pending] of cases) {
        const res = await pending;
        ctx.expectError("CAP-ERR-5", res, 400, "validation_failed", what);
        expectDetails(ctx, res, what);
      }
    },
  }),
  defineCheck({
    id: "errors.shape-on-every-non-2xx",
    family: "errors",
    title:
      "sends every non-2xx answer of the run as application/json {code, message, details?} with a registered code and status",
    verifies: ["CAP-ERR-1"],
    last: true,
    async run(ctx: CheckContext) {
      const { audit } = ctx.run;
      if (audit.failures === 0) ctx.incomplete("the run saw no non-2xx answer to audit");
      ctx.note(`${audit.failures} non-2xx answers audited`);
      for (const v of audit.errors.slice(0, 25))
        ctx.expect("CAP-ERR-1", false, {
          message: `${v.exchange.method} ${new URL(v.exchange.url).pathname} answered ${v.exchange.status} without the error shape`,
          expected: "application/json {code, message, details?} with a registered code",
          actual: v.problems.join("; "),
          exchange: v.exchange,
        });
      if (audit.errors.length > 25)
        ctx.note(`${audit.errors.length - 25} more error-shape violations not listed`);
    },
  }),
];
