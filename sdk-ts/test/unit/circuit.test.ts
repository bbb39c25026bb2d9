import { describe, expect, it } from "vitest";
import { stableJitter } from "../../src/internal/client/time.js";
import { classifyFailure, type FailureClass, RetryCircuit } from "../../src/internal/driver/circuit.js";

const MIN = 60_000;

describe("RetryCircuit (ADR-005 §Spawning semantics)", () => {
  // given a streak of failure classes (interval 5 s, no jitter), want the delays and the open flags.
  const cases: Array<[string, FailureClass[], number[], boolean[]]> = [
    [
      "runtime: interval, twice it, then a one-minute circuit doubling to 15 minutes",
      ["runtime", "runtime", "runtime", "runtime", "runtime", "runtime", "runtime", "runtime"],
      [5000, 10_000, MIN, 2 * MIN, 4 * MIN, 8 * MIN, 15 * MIN, 15 * MIN],
      [false, false, true, true, true, true, true, true],
    ],
    ["quota: 15 minutes at once", ["quota", "quota"], [15 * MIN, 15 * MIN], [true, true]],
    ["configuration: 15 minutes at once", ["configuration"], [15 * MIN], [true]],
    [
      "rate limit: one minute doubling to 15 minutes",
      ["rate_limit", "rate_limit", "rate_limit", "rate_limit", "rate_limit", "rate_limit"],
      [MIN, 2 * MIN, 4 * MIN, 8 * MIN, 15 * MIN, 15 * MIN],
      [true, true, true, true, true, true],
    ],
    [
      "a rate limit after a runtime failure opens at one minute",
      ["runtime", "rate_limit", "runtime"],
      [5000, MIN, 2 * MIN],
      [false, true, true],
    ],
    [
      "a runtime probe after quota stays at the ceiling",
      ["quota", "runtime"],
      [15 * MIN, 15 * MIN],
      [true, true],
    ],
  ];
  for (const [name, classes, delays, open] of cases) {
    it(`delays ${name}`, () => {
      const circuit = new RetryCircuit(5000, 0);
      const decisions = classes.map((c) => circuit.failure(c));
      expect(decisions.map((d) => d.delayMs)).toEqual(delays);
      expect(decisions.map((d) => d.open)).toEqual(open);
      expect(decisions.map((d) => d.consecutive)).toEqual(classes.map((_, i) => i + 1));
    });
  }

  it("starts over after a completed turn", () => {
    const circuit = new RetryCircuit(5000, 0);
    for (let i = 0; i < 4; i++) circuit.failure("runtime");
    circuit.reset();
    expect(circuit.failure("runtime")).toMatchObject({ delayMs: 5000, consecutive: 1, open: false });
  });

  it("adds the agent's stable offset, at most 20 % (18 minutes at the ceiling)", () => {
    const jitter = stableJitter("my-claude@laptop");
    expect(jitter).toBe(stableJitter("my-claude@laptop"));
    expect(jitter).toBeGreaterThanOrEqual(0);
    expect(jitter).toBeLessThan(0.2);
    const circuit = new RetryCircuit(5000, jitter);
    expect(circuit.failure("quota").delayMs).toBe(Math.round(15 * MIN * (1 + jitter)));
    expect(Math.round(15 * MIN * 1.2)).toBe(18 * MIN);
  });

  it("spreads a fleet: different agents get different offsets", () => {
    const offsets = new Set(Array.from({ length: 50 }, (_, i) => stableJitter(`agent-${i}`).toFixed(4)));
    expect(offsets.size).toBeGreaterThan(45);
  });
});

describe("classifyFailure", () => {
  // given what a handler threw, want its class.
  const cases: Array<[string, unknown, FailureClass]> = [
    ["an AdapterError of kind quota", Object.assign(new Error("x"), { kind: "quota" }), "quota"],
    ["an AdapterError of kind timeout", Object.assign(new Error("x"), { kind: "timeout" }), "runtime"],
    [
      "an AdapterError of kind not_found",
      Object.assign(new Error("x"), { kind: "not_found" }),
      "configuration",
    ],
    ["an error with class rate_limit", Object.assign(new Error("x"), { class: "rate_limit" }), "rate_limit"],
    [
      "an unknown kind, classified by message",
      Object.assign(new Error("429 Too Many Requests"), { kind: "?" }),
      "rate_limit",
    ],
    ["a CapHttpError-like 429", Object.assign(new Error("x"), { status: 429 }), "rate_limit"],
    ["a CapHttpError-like 403", Object.assign(new Error("x"), { status: 403 }), "configuration"],
    ["insufficient_quota", new Error("Error: 429 insufficient_quota"), "quota"],
    ["a credit balance message", new Error("Your credit balance is too low"), "quota"],
    ["not logged in", new Error("claude: Not logged in · Please run /login"), "configuration"],
    ["an invalid API key", new Error("Invalid API key provided"), "configuration"],
    ["a missing binary", new Error("spawn codex ENOENT"), "configuration"],
    ["rate limited", new Error("rate_limit_error: slow down"), "rate_limit"],
    ["overloaded", new Error("API Error: 529 overloaded_error"), "rate_limit"],
    ["an empty-stderr nonzero exit", new Error("claude exited 1"), "runtime"],
    ["a thrown string", "boom", "runtime"],
    ["undefined", undefined, "runtime"],
  ];
  for (const [name, error, want] of cases) {
    it(`classifies ${name} as ${want}`, () => {
      expect(classifyFailure(error)).toBe(want);
    });
  }
});
