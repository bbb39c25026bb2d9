/**
 * Setup steps as a table: given the answer to a step a check relies on (a post, an ack, a poll), want what
 * the check records — nothing, a failure of the step's requirement marked `setup`, a failure of the
 * check's own requirement (a refusal, or a step whose requirement the check verifies), or an incomplete
 * check — and the CheckResult the runner makes of it. Pure: the answers are made up, no kernel.
 */
import { describe, expect, it } from "vitest";
import { type Demand, demands } from "../src/agents.js";
import { CheckContext, CheckFailed, CheckIncomplete, type RunState, SetupFailed } from "../src/context.js";
import type { Answer } from "../src/http/exchange.js";
import { parseManifest } from "../src/requirements.js";
import { checkResult } from "../src/runner/execute.js";

const answer = (status: number, body: unknown): Answer => ({
  status,
  body,
  headers: {},
  durationMs: 1,
  exchange: {
    seq: 1,
    as: "a",
    method: "POST",
    url: "http://k/api/agents/runtime/pods/p/messages",
    requestHeaders: {},
    status,
    responseHeaders: {},
    responseBody: JSON.stringify(body),
    json: body,
    startedAt: "2026-01-01T00:00:00.000Z",
    durationMs: 1,
  },
});

const requirement = (id: string, level: "MUST" | "SHOULD") => ({
  id,
  level,
  subject: "kernel",
  text: `${id} text`,
  section: "S",
  testable: true,
  feature: null,
});
const manifest = parseManifest(
  JSON.stringify({
    requirements: [
      requirement("CAP-MSG-1", "MUST"),
      requirement("CAP-MSG-5", "MUST"),
      requirement("CAP-ACK-1", "MUST"),
      requirement("CAP-COMPAT-4", "MUST"),
      requirement("CAP-EVT-7", "SHOULD"),
    ],
  }),
  "fake",
);

type Step = (ctx: CheckContext) => void;
const post =
  (a: Answer): Step =>
  (ctx) =>
    ctx.setupAnswer(a, demands.post, "posting a thread root");
const accepted =
  (a: Answer, demand: Demand): Step =>
  (ctx) => {
    ctx.expectAccepted("CAP-COMPAT-4", a, "a post with unknown fields", demand);
  };

interface Case {
  name: string;
  verifies: string[];
  step: Step;
  want: {
    thrown?: typeof CheckFailed | typeof CheckIncomplete;
    failures: { requirement: string; setup?: string; message?: string }[];
    status: string;
    reason?: RegExp;
  };
}

const created = answer(201, { id: "msg_1", createdAt: "2026-01-01T00:00:00Z" });
const cases: Case[] = [
  {
    name: "a post answered 201 {id} passes the step",
    verifies: ["CAP-MSG-5"],
    step: post(created),
    want: { failures: [], status: "passed" },
  },
  {
    name: "a post answered 200 fails the step under CAP-MSG-1, never under the check's CAP-MSG-5",
    verifies: ["CAP-MSG-5"],
    step: post(answer(200, { id: "msg_1" })),
    want: {
      thrown: SetupFailed,
      failures: [
        {
          requirement: "CAP-MSG-1",
          setup: "posting a thread root",
          message: "setup failed: posting a thread root",
        },
      ],
      status: "failed",
      reason: /^setup failed: posting a thread root \(CAP-MSG-1\)$/,
    },
  },
  {
    name: "a post answered 201 without an id fails the step (CAP-MSG-1 promises {id, createdAt})",
    verifies: ["CAP-MSG-5"],
    step: post(answer(201, { success: true })),
    want: {
      thrown: SetupFailed,
      failures: [{ requirement: "CAP-MSG-1", setup: "posting a thread root" }],
      status: "failed",
    },
  },
  {
    name: "a step whose requirement the check itself verifies is an ordinary failure of it",
    verifies: ["CAP-MSG-1"],
    step: post(answer(200, { id: "msg_1" })),
    want: {
      thrown: CheckFailed,
      failures: [{ requirement: "CAP-MSG-1", message: "posting a thread root" }],
      status: "failed",
    },
  },
  {
    name: "a 503 to a step makes the check incomplete and blames nobody",
    verifies: ["CAP-MSG-5"],
    step: post(answer(503, { code: "store_unavailable", message: "x" })),
    want: {
      thrown: CheckIncomplete,
      failures: [],
      status: "incomplete",
      reason: /^setup failed: posting a thread root answered HTTP 503/,
    },
  },
  {
    name: "a 429 to a step makes the check incomplete and blames nobody",
    verifies: ["CAP-MSG-5"],
    step: post(answer(429, { code: "rate_limited", message: "x" })),
    want: { thrown: CheckIncomplete, failures: [], status: "incomplete" },
  },
  {
    name: "a refused request whose acceptance the check verifies fails the check's requirement and goes on",
    verifies: ["CAP-COMPAT-4"],
    step: accepted(answer(400, { code: "validation_failed", message: "x" }), demands.post),
    want: { failures: [{ requirement: "CAP-COMPAT-4" }], status: "failed" },
  },
  {
    name: "an accepted request answered otherwise than its operation demands is the operation's setup failure",
    verifies: ["CAP-COMPAT-4"],
    step: accepted(answer(200, { success: true }), demands.post),
    want: {
      thrown: SetupFailed,
      failures: [{ requirement: "CAP-MSG-1", setup: "a post with unknown fields" }],
      status: "failed",
    },
  },
  {
    name: "an accepted ack answered {success: true} is CAP-ACK-1's setup failure",
    verifies: ["CAP-COMPAT-4"],
    step: accepted(answer(200, { success: true }), demands.ack),
    want: { thrown: SetupFailed, failures: [{ requirement: "CAP-ACK-1" }], status: "failed" },
  },
  {
    name: "a setup step held to a SHOULD stops the check, which is then incomplete, not warned",
    verifies: ["CAP-MSG-5"],
    step: (ctx) => ctx.setupStatus("CAP-EVT-7", answer(200, {}), 204, "a step defined by a SHOULD"),
    want: {
      thrown: SetupFailed,
      failures: [{ requirement: "CAP-EVT-7", setup: "a step defined by a SHOULD" }],
      status: "incomplete",
    },
  },
  {
    name: "a setup step naming an id the manifest lacks is a harness error, not a kernel failure",
    verifies: ["CAP-MSG-5"],
    step: (ctx) => ctx.setupStatus("CAP-NOPE-1", answer(200, {}), 201, "a step of a typo"),
    want: { thrown: SetupFailed, failures: [], status: "incomplete", reason: /^harness error: .*CAP-NOPE-1/ },
  },
];

describe("a setup step's answer", () => {
  for (const c of cases)
    it(c.name, () => {
      const ctx = new CheckContext({ id: "messages.x", verifies: c.verifies }, {} as RunState);
      let thrown: unknown;
      try {
        c.step(ctx);
      } catch (e) {
        thrown = e;
      }
      if (c.want.thrown) expect(thrown).toBeInstanceOf(c.want.thrown);
      else expect(thrown).toBeUndefined();
      // What the runner makes of it (execute.ts maps the thrown signal the same way).
      const incomplete = thrown instanceof CheckIncomplete;
      const r = checkResult(
        { id: "messages.x", family: "messages", title: "x", verifies: c.verifies },
        manifest,
        {
          status: incomplete ? "incomplete" : undefined,
          reason: incomplete ? (thrown as Error).message : undefined,
          stoppedEarly: thrown instanceof CheckFailed,
          startedAt: performance.now(),
          failures: ctx.failures,
          notes: [],
        },
      );
      expect(r.status).toBe(c.want.status);
      expect(
        r.failures.map((f) => ({ requirement: f.requirement, setup: f.setup, message: f.message })),
      ).toEqual(c.want.failures.map((f) => expect.objectContaining(f)));
      if (c.want.reason) expect(r.reason).toMatch(c.want.reason);
      // The check never blames its own ids for a step it relies on.
      for (const f of r.failures.filter((x) => x.setup !== undefined))
        expect(c.verifies).not.toContain(f.requirement);
    });
});
