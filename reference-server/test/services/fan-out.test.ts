import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/services/canonical-json.js";
import { fanOut, mentions } from "../../src/services/fan-out.js";
import { syncDedupKey } from "../../src/services/memory.js";
import type { InstallationRecord, MessageRecord } from "../../src/store/contract.js";

const inst = (agentName: string, over: Partial<InstallationRecord> = {}): InstallationRecord => ({
  id: `ins_${agentName}`,
  agentId: `agt_${agentName}`,
  agentName,
  instanceId: "default",
  podId: "pod_a",
  scopes: [],
  messagePosted: true,
  doubleTexting: "enqueue",
  installedBy: { kind: "human", id: "usr" },
  authorizedBy: "usr",
  status: "active",
  createdAt: 0,
  uninstalledAt: null,
  uninstalledBy: null,
  ...over,
});
const msg = (content: string, author: MessageRecord["author"]): MessageRecord => ({
  id: "msg_1",
  podId: "pod_a",
  content,
  author,
  replyToMessageId: null,
  metadata: null,
  traceparent: null,
  tracestate: null,
  createdAt: 0,
});
let n = 0;
const ids = () => `evt_${n++}`;
const who = (events: { agentId: string; type: string }[]) =>
  events.map((e) => `${e.agentId}:${e.type}`).sort();

describe("mentions", () => {
  const table: [string, string, boolean][] = [
    ["@echo", "echo", true],
    ["hey @Echo!", "echo", true],
    ["@echo,@echo", "echo", true],
    ["x@echo", "echo", false],
    ["@echoes", "echo", false],
    ["@echo-bot", "echo", false],
    ["@echo-bot", "echo-bot", true],
    ["@a.b", "a.b", true],
    ["@axb", "a.b", false],
    ["email me", "echo", false],
    ["@ECHO and more", "EcHo", true],
    ["no at sign: echo", "echo", false],
    ["@\u212Acho", "kcho", false], // the Kelvin sign lower-cases to k, yet is not a k for the pattern
    ["İ @echo", "echo", true], // a character whose lower case is longer does not shift the match
  ];
  for (const [content, name, want] of table)
    it(`${want ? "finds" : "does not find"} @${name} in "${content}"`, () =>
      expect(mentions(content, name)).toBe(want));
});

describe("fanOut", () => {
  const installs = [inst("alpha"), inst("beta"), inst("quiet", { messagePosted: false })];
  it("gives a human's message message.posted to all but opted-out agents, mention.received to the mentioned", () => {
    const evs = fanOut({
      message: msg("@beta hi", { kind: "human", id: "usr", name: "lily" }),
      installations: installs,
      replyToAgentId: null,
      newEventId: ids,
    });
    expect(who(evs)).toEqual(["agt_alpha:message.posted", "agt_beta:mention.received"]);
  });
  it("wakes the replied-to agent even if it opted out", () => {
    const evs = fanOut({
      message: msg("ok", { kind: "human", id: "usr", name: "lily" }),
      installations: installs,
      replyToAgentId: "agt_quiet",
      newEventId: ids,
    });
    expect(who(evs)).toContain("agt_quiet:message.posted");
  });
  it("wakes only mentioned agents for an agent's message, never the author", () => {
    const evs = fanOut({
      message: msg("@alpha @beta", { kind: "agent", id: "agt_alpha", name: "alpha" }),
      installations: installs,
      replyToAgentId: null,
      newEventId: ids,
    });
    expect(who(evs)).toEqual(["agt_beta:mention.received"]);
  });
});

describe("canonical JSON and the sync dedup key", () => {
  it("sorts keys at every depth, keeps array order, drops whitespace", () => {
    expect(canonicalJson({ b: [3, { y: 1, x: "é" }], a: null })).toBe('{"a":null,"b":[3,{"x":"é","y":1}]}');
  });
  it("reproduces CAP.md's worked example key", () => {
    const body = {
      mode: "patch" as const,
      sourceRuntime: "local-cli",
      sections: { long_term: { visibility: "private", content: "Lily is allergic to kiwi." } },
    };
    expect(syncDedupKey(body, Date.UTC(2026, 10, 29, 23, 59))).toBe(
      "2026-11-29|local-cli|8714e0f54b9c9159a5a6a94b63c17612c142dad3d82dc65bbb60541601b5cad6",
    );
  });
  it("uses an empty sourceRuntime slot and null in the hash when none is sent", () => {
    expect(syncDedupKey({ mode: "full", sections: {} }, 0)).toMatch(/^1970-01-01\|\|[0-9a-f]{64}$/);
  });
});
