/**
 * The breaking-change gate: each kind of breaking change, applied once to the frozen CAP v1.0.0 contract,
 * fails it and is named; additive changes pass; the gate passes on the current documents; and freezing
 * never rewrites a released file. Mutates copies in memory or in a temporary folder, never the tree.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { ADMIN_POLICY, CAP_POLICY, compareOpenApi } from "../scripts/gate/openapi-changes.mjs";
import { compareRequirements } from "../scripts/gate/requirements-changes.mjs";

const spec = join(dirname(fileURLToPath(import.meta.url)), "..");
const released = join(spec, "released");
const readYaml = (file: string) => parse(readFileSync(file, "utf8"));
const frozenCap = readYaml(join(released, "cap-v1.0.0.openapi.yaml"));
const frozenReqs = JSON.parse(readFileSync(join(released, "cap-v1.0.0.requirements.json"), "utf8"));
const frozenAdmin = readYaml(join(released, "kernel-admin-v1.0.0.openapi.yaml"));

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI documents are walked as plain data here.
type Doc = any;
const P = "/api/agents/runtime";
const schema = (d: Doc, name: string) => d.components.schemas[name];
const mutate = (doc: Doc, change: (d: Doc) => void) => {
  const copy = structuredClone(doc);
  change(copy);
  return copy;
};
const named = (r: { breaking: { where?: string; id?: string; what: string }[] }) =>
  r.breaking.map((b) => `${b.where ?? b.id}: ${b.what}`).join("\n");

describe("the gate on CAP v1's OpenAPI document", () => {
  it("finds no change between the frozen document and itself", () => {
    expect(compareOpenApi(frozenCap, structuredClone(frozenCap), CAP_POLICY)).toEqual({
      breaking: [],
      additive: [],
    });
  });

  // [kind, the change, a phrase the failure must contain]
  const breaking: [string, (d: Doc) => void, RegExp][] = [
    [
      "a removed path",
      (d) => delete d.paths[`${P}/info`],
      /\[Removed\] operation GET \/api\/agents\/runtime\/info/,
    ],
    [
      "a renamed path",
      (d) => {
        d.paths[`${P}/information`] = d.paths[`${P}/info`];
        delete d.paths[`${P}/info`];
      },
      /\[Removed\] operation GET \/api\/agents\/runtime\/info/,
    ],
    [
      "a removed operation (one method of a path)",
      (d) => delete d.paths[`${P}/pods/{podId}/messages`].get,
      /\[Removed\] operation GET/,
    ],
    [
      "a renamed operation",
      (d) => {
        d.paths[`${P}/events`].get.operationId = "Events_fetch";
      },
      /operation renamed: operationId "Events_poll" is now "Events_fetch"/,
    ],
    [
      "a removed required response field",
      (d) => {
        delete schema(d, "Event").properties.attempts;
        schema(d, "Event").required = schema(d, "Event").required.filter((f: string) => f !== "attempts");
      },
      /property "attempts" removed/,
    ],
    [
      "a removed optional response field",
      (d) => delete schema(d, "Event").properties.leaseExpiresAt,
      /property "leaseExpiresAt" removed/,
    ],
    [
      "a removed field of an event payload (no route references it)",
      (d) => {
        delete schema(d, "MentionReceivedPayload").properties.mention;
        schema(d, "MentionReceivedPayload").required.pop();
      },
      /schema MentionReceivedPayload.*property "mention" removed/,
    ],
    [
      "a removed request enum value",
      (d) => {
        schema(d, "SyncMode").enum = ["patch"];
      },
      /possible values of `mode` in Request Body/,
    ],
    [
      "a removed response enum value",
      (d) => {
        schema(d, "ReleaseResponse").properties.status.enum = ["pending"];
      },
      /possible values of `status` in Response 200.*kernels/,
    ],
    [
      "a removed feature name (an open set: only additions pass)",
      (d) => {
        schema(d, "Feature").enum = schema(d, "Feature").enum.filter((f: string) => f !== "renew");
      },
      /open-set value "renew" removed/,
    ],
    [
      "a removed response status",
      (d) => delete d.paths[`${P}/events/{id}/ack`].post.responses["404"],
      /\[Removed\] Response 404/,
    ],
    [
      "a new required request field",
      (d) => {
        schema(d, "PostMessageRequest").properties.priority = { type: "string" };
        schema(d, "PostMessageRequest").required.push("priority");
      },
      /\[Added\] required status to `priority` in Request Body/,
    ],
    [
      "an optional request field made required",
      (d) => {
        schema(d, "PostMessageRequest").required.push("replyToMessageId");
      },
      /\[Added\] required status to `replyToMessageId`/,
    ],
    [
      "a request field's type narrowed (string to integer)",
      (d) => {
        schema(d, "PostMessageRequest").properties.replyToMessageId.type = "integer";
      },
      /\[Replaced\] type definition of `replyToMessageId` in Request Body/,
    ],
    [
      "a request field given a maxLength",
      (d) => {
        schema(d, "PostMessageRequest").properties.replyToMessageId.maxLength = 10;
      },
      /\[Added\] maxLength validator to `replyToMessageId`/,
    ],
    [
      "a request field given a format",
      (d) => {
        schema(d, "PostMessageRequest").properties.replyToMessageId.format = "uuid";
      },
      /\[Added\] value format to `replyToMessageId`/,
    ],
    [
      "a query parameter's maximum lowered",
      (d) => {
        d.paths[`${P}/events`].get.parameters[0].schema.maximum = 10;
      },
      /maximum validator in query parameter `limit`/,
    ],
    [
      "a query parameter removed",
      (d) => d.paths[`${P}/events`].get.parameters.splice(2, 1),
      /query parameter `pollId`/,
    ],
    [
      "a response field's type changed",
      (d) => {
        schema(d, "Event").properties.attempts.type = "string";
      },
      /type definition of `events\[\]\.attempts` in Response 200/,
    ],
    [
      "a new required response field (a 1.0.0 kernel does not send it)",
      (d) => {
        schema(d, "Event").properties.traceId = { type: "string" };
        schema(d, "Event").required.push("traceId");
      },
      /required status to `events\[\]\.traceId`.*kernels/,
    ],
    [
      "a new value in a closed response enum (1.0.0 drivers do not know it)",
      (d) => {
        schema(d, "ReleaseResponse").properties.status.enum.push("parked");
      },
      /possible values of `status` in Response 200.*drivers/,
    ],
    [
      "a request limit relaxed (a 1.0.0 kernel still refuses past it)",
      (d) => {
        d.paths[`${P}/events`].get.parameters[0].schema.maximum = 100;
      },
      /maximum validator in query parameter `limit`.*kernels/,
    ],
    [
      "a new value in a request-only enum that no feature guards (1.0.0 kernels refuse it)",
      (d) => {
        schema(d, "AckOutcome").enum.push("abandoned");
      },
      /possible values of `result\.outcome` in Request Body.*kernels/,
    ],
    [
      "a feature-guarded request value whose feature the document does not name",
      (d) => {
        schema(d, "AckOutcome").enum.push("cancelled");
      },
      /possible values of `result\.outcome` in Request Body.*kernels/,
    ],
    [
      "a feature-guarded value in a schema a response reaches (1.0.0 drivers would read it)",
      (d) => {
        schema(d, "Feature").enum.push("cancel");
        schema(d, "AckOutcome").enum.push("cancelled");
        schema(d, "Event").properties.lastOutcome = { $ref: "#/components/schemas/AckOutcome" };
      },
      /possible values of `result\.outcome` in Request Body/,
    ],
    [
      "the security scheme changed",
      (d) => {
        d.components.securitySchemes.AgentToken = { type: "apiKey", in: "header", name: "X-Token" };
      },
      /securitySchemes\.AgentToken/,
    ],
  ];
  it.each(breaking)("fails on %s, naming it", (_kind, change, expected) => {
    const result = compareOpenApi(frozenCap, mutate(frozenCap, change), CAP_POLICY);
    expect(result.breaking.length).toBeGreaterThan(0);
    expect(result.breaking.map((b) => `${b.where}: ${b.what} [${b.why}]`).join("\n")).toMatch(expected);
  });

  const additive: [string, (d: Doc) => void][] = [
    [
      "a new optional request field",
      (d) => {
        schema(d, "PostMessageRequest").properties.priority = { type: "string" };
      },
    ],
    [
      "a new path",
      (d) => {
        d.paths[`${P}/streams`] = mutate(d.paths[`${P}/info`], (p) => {
          p.get.operationId = "Streams_list";
        });
      },
    ],
    [
      "a new optional response field",
      (d) => {
        schema(d, "Event").properties.traceId = { type: "string" };
      },
    ],
    [
      "a new optional object in a response (as Info.limits was)",
      (d) => {
        schema(d, "Info").properties.quotas = {
          type: "object",
          properties: { perMinute: { type: "integer" } },
        };
      },
    ],
    [
      "a new optional query parameter",
      (d) => {
        d.paths[`${P}/events`].get.parameters.push({
          name: "podId",
          in: "query",
          required: false,
          schema: { type: "string" },
        });
      },
    ],
    [
      "a new error status on an operation",
      (d) => {
        const ack = d.paths[`${P}/events/{id}/ack`].post.responses;
        ack["431"] = structuredClone(ack["404"]);
      },
    ],
    ["a new feature name", (d) => schema(d, "Feature").enum.push("streams")],
    [
      "a new request-only enum value a driver sends only to a kernel advertising its feature (cancelled)",
      (d) => {
        schema(d, "Feature").enum.push("cancel");
        schema(d, "AckOutcome").enum.push("cancelled");
      },
    ],
    [
      "a changed example (documentation binds no one)",
      (d) => {
        schema(d, "Limits").examples[0].maxCancelWatchesPerToken = 64;
      },
    ],
    [
      "a new optional field in an event payload",
      (d) => {
        schema(d, "MentionReceivedPayload").properties.threadId = { type: "string" };
      },
    ],
    [
      "a new event payload schema",
      (d) => {
        d.components.schemas.TaskDonePayload = { type: "object", properties: { taskId: { type: "string" } } };
      },
    ],
    [
      "reworded descriptions and a new minor version",
      (d) => {
        d.info.version = "1.1.0";
        schema(d, "Event").description = "One unit of work for one agent.";
      },
    ],
  ];
  it.each(additive)("passes %s", (_kind, change) => {
    const result = compareOpenApi(frozenCap, mutate(frozenCap, change), CAP_POLICY);
    expect(named(result)).toBe("");
    expect(result.additive.length).toBeGreaterThan(0);
  });
});

describe("the gate on the requirements manifest", () => {
  const req = (d: Doc, id: string) => d.requirements.find((r: { id: string }) => r.id === id);
  const must = frozenReqs.requirements.find((r: Doc) => r.level === "MUST" && / MUST (?!NOT)/.test(r.text));
  const should = frozenReqs.requirements.find((r: Doc) => r.level === "SHOULD");

  const breaking: [string, (d: Doc) => void, RegExp][] = [
    [
      "a removed id",
      (d) => {
        d.requirements = d.requirements.filter((r: Doc) => r.id !== must.id);
      },
      new RegExp(`${must.id}: removed`),
    ],
    [
      "a MUST weakened to SHOULD",
      (d) => {
        req(d, must.id).level = "SHOULD";
        req(d, must.id).text = must.text.replace(" MUST ", " SHOULD ");
      },
      new RegExp(`^${must.id}: weakened from MUST to SHOULD[^\\n]*$`),
    ],
    [
      "a MUST weakened to MAY",
      (d) => {
        req(d, must.id).level = "MAY";
      },
      new RegExp(`${must.id}: weakened from MUST to MAY`),
    ],
    [
      "a SHOULD strengthened to MUST",
      (d) => {
        req(d, should.id).level = "MUST";
      },
      new RegExp(`${should.id}: strengthened from SHOULD to MUST`),
    ],
    [
      "a MUST turned into MUST NOT",
      (d) => {
        req(d, must.id).text = must.text.replace(" MUST ", " MUST NOT ");
      },
      new RegExp(`${must.id}: key word changed from MUST to MUST NOT`),
    ],
    [
      "a kernel requirement moved to drivers",
      (d) => {
        req(d, must.id).subject = must.subject === "kernel" ? "driver" : "kernel";
      },
      new RegExp(`${must.id}: now binds`),
    ],
    [
      "a requirement put behind a feature",
      (d) => {
        req(d, must.id).feature = "renew";
      },
      new RegExp(`${must.id}: now applies only with feature renew`),
    ],
  ];
  it.each(breaking)("fails on %s, naming it", (_kind, change, expected) => {
    const result = compareRequirements(frozenReqs, mutate(frozenReqs, change));
    expect(named(result)).toMatch(expected);
  });

  it("passes a new requirement id and lists it", () => {
    const result = compareRequirements(
      frozenReqs,
      mutate(frozenReqs, (d) =>
        d.requirements.push({ ...must, id: "CAP-EVT-99", text: "A kernel MUST do something new." }),
      ),
    );
    expect(result.breaking).toEqual([]);
    expect(result.notices).toEqual([{ id: "CAP-EVT-99", what: "added (MUST)" }]);
  });

  it("passes a reworded sentence whose key word is unchanged, and lists it for a reviewer", () => {
    const result = compareRequirements(
      frozenReqs,
      mutate(frozenReqs, (d) => {
        req(d, must.id).text = `${must.text} `;
      }),
    );
    expect(result.breaking).toEqual([]);
    expect(result.notices[0].what).toMatch(/reworded, key word MUST unchanged/);
  });
});

describe("the gate on the admin surface (versioned apart: only its clients are protected)", () => {
  it("fails on a removed operation", () => {
    const result = compareOpenApi(
      frozenAdmin,
      mutate(frozenAdmin, (d) => delete d.paths["/api/users/me"]),
      ADMIN_POLICY,
    );
    expect(named(result)).toMatch(/\[Removed\] operation GET \/api\/users\/me/);
  });

  it("passes a new event state in the operator views (an open set) and fails a removed one", () => {
    const state = (d: Doc) => d.components.schemas.QueuedEvent.properties.state;
    const added = compareOpenApi(
      frozenAdmin,
      mutate(frozenAdmin, (d) => state(d).enum.push("parked")),
      ADMIN_POLICY,
    );
    expect(named(added)).toBe("");
    expect(added.additive.map((a) => a.what)).toContain('open-set value "parked" added');
    const removed = compareOpenApi(
      frozenAdmin,
      mutate(frozenAdmin, (d) => {
        state(d).enum = state(d).enum.filter((s: string) => s !== "leased");
      }),
      ADMIN_POLICY,
    );
    expect(named(removed)).toMatch(/open-set value "leased" removed/);
  });

  it("fails a new value in another closed response enum", () => {
    const result = compareOpenApi(
      frozenAdmin,
      mutate(frozenAdmin, (d) => d.components.schemas.Installation.properties.status.enum.push("paused")),
      ADMIN_POLICY,
    );
    expect(result.breaking.length).toBeGreaterThan(0);
  });

  it("passes a new required response field, which CAP's two-sided rule would refuse", () => {
    const change = (d: Doc) => {
      const user = d.components.schemas.User;
      user.properties.locale = { type: "string" };
      user.required.push("locale");
    };
    expect(compareOpenApi(frozenAdmin, mutate(frozenAdmin, change), ADMIN_POLICY).breaking).toEqual([]);
    expect(
      compareOpenApi(frozenAdmin, mutate(frozenAdmin, change), CAP_POLICY).breaking.length,
    ).toBeGreaterThan(0);
  });
});

describe("the gate and freeze commands", () => {
  const dir = mkdtempSync(join(tmpdir(), "cap-gate-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const node = (script: string, ...args: string[]) =>
    spawnSync(process.execPath, [join(spec, "scripts", script), ...args], { cwd: spec, encoding: "utf8" });

  it("passes on the current generated documents", () => {
    const r = node("gate.mjs");
    expect(r.stdout + r.stderr).not.toMatch(/FAIL/);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /ok {3}CAP generated\/cap-v1\.openapi\.yaml against released\/cap-v1\.0\.0\.openapi\.yaml/,
    );
  });

  it("exits 1 and names the change for a breaking current document", () => {
    const file = join(dir, "broken.yaml");
    writeFileSync(
      file,
      stringify(mutate(frozenCap, (d) => delete d.paths[`${P}/events/{id}/ack`].post.responses["404"])),
    );
    const r = node("gate.mjs", "--current-cap", file);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(
      /✗ POST \/api\/agents\/runtime\/events\/\{id\}\/ack responses\.404: \[Removed\] Response 404/,
    );
  });

  it("every released file says it is frozen", () => {
    for (const name of readdirSync(released)) {
      const text = readFileSync(join(released, name), "utf8");
      const first = name.endsWith(".json") ? JSON.parse(text).$comment : text.split("\n")[0];
      expect(first, name).toMatch(
        /^(# )?Frozen by `pnpm --filter @commonly\/cap-spec freeze -- (cap|admin) \d+\.\d+\.\d+`.*Never edit this file/,
      );
    }
  });

  it("refuses to overwrite a released contract and leaves it as it was", () => {
    const file = join(released, "cap-v1.0.0.openapi.yaml");
    const [before, mtime] = [readFileSync(file, "utf8"), statSync(file).mtimeMs];
    const r = node("freeze.mjs", "cap", "1.0.0");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/already frozen; a released contract is never rewritten/);
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(statSync(file).mtimeMs).toBe(mtime);
  });

  it("refuses a version the document does not carry", () => {
    const r = node("freeze.mjs", "cap", "1.7.0", "--out", dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/carries info\.version 1\.0\.0, not 1\.7\.0/);
  });

  it("freezes a copy the gate finds identical to what was generated", () => {
    const out = join(dir, "fresh");
    const r = node("freeze.mjs", "cap", "1.0.0", "--out", out);
    expect(r.status, r.stderr).toBe(0);
    const copy = readYaml(join(out, "cap-v1.0.0.openapi.yaml"));
    const generated = readYaml(join(spec, "generated", "cap-v1.openapi.yaml"));
    expect(copy).toEqual(generated);
  });
});
