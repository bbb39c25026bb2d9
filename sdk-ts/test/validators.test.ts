import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatIssues, type SchemaName, schemaNames, validate } from "../src/validators.js";

const schemaDir = join(import.meta.dirname, "..", "..", "spec", "generated", "json-schema");

describe("generated validators", () => {
  it("exist for exactly the models that have a JSON Schema", () => {
    const files = readdirSync(schemaDir).map((f) => f.replace(/\.json$/, ""));
    expect([...schemaNames].sort()).toEqual(files.sort());
  });

  for (const name of schemaNames) {
    it(`accept every example of ${name}`, () => {
      const schema = JSON.parse(readFileSync(join(schemaDir, `${name}.json`), "utf8"));
      expect(schema.examples?.length ?? 0).toBeGreaterThan(0);
      for (const example of schema.examples) {
        const result = validate(name, example);
        expect(result.valid ? "" : formatIssues(result.issues)).toBe("");
      }
    });
  }

  const event = {
    id: "evt_1",
    type: "heartbeat.tick",
    podId: "pod_1",
    payload: {},
    attempts: 1,
    createdAt: "2026-11-29T18:00:00Z",
  };

  // given a document, want the first issue's path and a fragment of its message.
  const invalid: Array<[string, SchemaName, unknown, string, RegExp]> = [
    ["attempts of the wrong type", "Event", { ...event, attempts: "1" }, "/attempts", /must be integer/],
    ["attempts below one", "Event", { ...event, attempts: 0 }, "/attempts", />= 1/],
    ["a missing id", "Event", { ...event, id: undefined }, "/", /missing required property "id"/],
    [
      "a timestamp that is not RFC 3339",
      "Event",
      { ...event, createdAt: "yesterday" },
      "/createdAt",
      /date-time/,
    ],
    ["a payload that is not an object", "Event", { ...event, payload: [] }, "/payload", /must be object/],
    ["events that are not an array", "EventList", { events: {} }, "/events", /must be array/],
    ["an unknown ack outcome", "AckRequest", { result: { outcome: "done" } }, "/result/outcome", /must be/],
    ["renew without attempts", "RenewRequest", {}, "/", /missing required property "attempts"/],
    ["empty message content", "PostMessageRequest", { content: "" }, "/content", /fewer than 1/],
    [
      "message content of the wrong type",
      "PostMessageRequest",
      { content: 42 },
      "/content",
      /must be string/,
    ],
    [
      "metadata that is not an object",
      "PostMessageRequest",
      { content: "hi", metadata: "x" },
      "/metadata",
      /object/,
    ],
    ["a bad sync mode", "SyncMemoryRequest", { sections: {}, mode: "merge" }, "/mode", /must be/],
    ["sync without mode", "SyncMemoryRequest", { sections: {} }, "/", /missing required property "mode"/],
    [
      "an unknown memory section",
      "SyncMemoryRequest",
      { sections: { diary: { content: "x" } }, mode: "full" },
      "/sections",
      /unknown property "diary"/,
    ],
    [
      "an unknown section on PUT",
      "PutMemoryRequest",
      { sections: { notes: { content: "x" } } },
      "/sections",
      /unknown property "notes"/,
    ],
    [
      "a bad visibility",
      "PutMemoryRequest",
      { sections: { soul: { content: "x", visibility: "friends" } } },
      "/sections/soul/visibility",
      /must be/,
    ],
    [
      "a daily entry with a bad date",
      "PutMemoryRequest",
      { sections: { daily: [{ date: "29/11/2026", content: "x" }] } },
      "/sections/daily/0/date",
      /pattern/,
    ],
    [
      "a relationship with no otherInstanceId",
      "PutMemoryRequest",
      { sections: { relationships: [{ notes: "x" }] } },
      "/sections/relationships/0",
      /otherInstanceId/,
    ],
    [
      "a decision with one option",
      "DecisionRequest",
      { podId: "p", decisionClass: "strategy", title: "t", question: "q", options: ["a"] },
      "/options",
      /fewer than 2/,
    ],
    [
      "a decision with five options",
      "DecisionRequest",
      {
        podId: "p",
        decisionClass: "strategy",
        title: "t",
        question: "q",
        options: ["a", "b", "c", "d", "e"],
      },
      "/options",
      /more than 4/,
    ],
    [
      "a decision with an extra field",
      "DecisionRequest",
      {
        podId: "p",
        decisionClass: "strategy",
        title: "t",
        question: "q",
        options: ["a", "b"],
        approve: true,
      },
      "/",
      /unknown property "approve"/,
    ],
    [
      "a bad decision class",
      "DecisionRequest",
      { podId: "p", decisionClass: "spending", title: "t", question: "q", options: ["a", "b"] },
      "/decisionClass",
      /must be/,
    ],
    [
      "info with a limit below one",
      "Info",
      {
        protocol: "cap",
        version: "1",
        leaseSeconds: 30,
        maxAttempts: 5,
        maxLimit: 0,
        maxWaitSeconds: 25,
        maxMessageBytes: 1,
        features: [],
      },
      "/maxLimit",
      />= 1/,
    ],
    [
      "info for another protocol",
      "Info",
      {
        protocol: "mcp",
        version: "1",
        leaseSeconds: 30,
        maxAttempts: 5,
        maxLimit: 50,
        maxWaitSeconds: 25,
        maxMessageBytes: 1,
        features: [],
      },
      "/protocol",
      /must be "cap"/,
    ],
    ["an error without a code", "Error", { message: "x" }, "/", /missing required property "code"/],
    [
      "an error code that is not snake_case",
      "Error",
      { code: "Not-Found", message: "x" },
      "/code",
      /pattern/,
    ],
    [
      "a memory envelope of schemaVersion 1",
      "MemoryEnvelope",
      { content: "", sections: {}, schemaVersion: 1 },
      "/schemaVersion",
      /must be 2/,
    ],
  ];

  it.each(invalid)("reject %s with a useful path", (_label, name, doc, path, message) => {
    const result = validate(name, doc);
    expect(result.valid).toBe(false);
    if (result.valid) return;
    const hit = result.issues.find((i) => i.path === path && message.test(i.message));
    expect(hit, `issues were:\n${formatIssues(result.issues)}`).toBeDefined();
  });

  it("refuses an unknown schema name loudly", () => {
    expect(() => validate("Nope" as SchemaName, {})).toThrow(/no CAP schema named "Nope"/);
  });
});
