import { describe, expect, it } from "vitest";
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  idempotencyKey,
  shouldPost,
  splitReply,
  stopNote,
  stopNoteKey,
} from "../src/reply.js";

const bytes = (s: string) => Buffer.byteLength(s, "utf8");

describe("shouldPost", () => {
  it.each([
    ["Hello", "message.posted", true],
    ["", "message.posted", false],
    ["  \n\t", "mention.received", false],
    ["NO_REPLY", "message.posted", false],
    ["NO_REPLY\n", "heartbeat.tick", false],
    ["HEARTBEAT_OK", "heartbeat.tick", false],
    [" HEARTBEAT_OK \n", "heartbeat", false],
    ["HEARTBEAT_OK", "message.posted", true],
    ["NO_REPLY, but here is why", "message.posted", true],
    ["no_reply", "message.posted", true],
  ])("%j on %s → %s", (text, type, want) => {
    expect(shouldPost(text, type)).toBe(want);
  });
});

describe("splitReply", () => {
  const cases: Array<{ name: string; text: string; max: number; want: string[] }> = [
    { name: "fits: returned as is", text: "short reply", max: 100, want: ["short reply"] },
    { name: "empty: nothing to post", text: "  \n", max: 100, want: [] },
    { name: "at paragraph breaks", text: "aaaa\n\nbbbb\n\ncccc", max: 10, want: ["aaaa\n\nbbbb", "cccc"] },
    {
      name: "at line breaks when a paragraph is too long",
      text: "aaaa\nbbbb\ncccc",
      max: 10,
      want: ["aaaa\nbbbb", "cccc"],
    },
    {
      name: "at spaces when a line is too long",
      text: "aaa bbb ccc ddd",
      max: 8,
      want: ["aaa bbb", "ccc ddd"],
    },
    { name: "hard split of one long word", text: "abcdefghij", max: 4, want: ["abcd", "efgh", "ij"] },
    { name: "never inside a 2-byte char", text: "ééééé", max: 5, want: ["éé", "éé", "é"] },
    { name: "never inside a 4-byte char", text: "😀😀😀", max: 7, want: ["😀", "😀", "😀"] },
    { name: "mixed widths", text: "a😀b😀", max: 5, want: ["a😀", "b😀"] },
    {
      name: "paragraph preferred over a fuller line-packed split",
      text: "p1 line\n\np2 line1\np2 line2",
      max: 20,
      want: ["p1 line", "p2 line1\np2 line2"],
    },
  ];
  it.each(cases)("$name", ({ text, max, want }) => {
    expect(splitReply(text, max)).toEqual(want);
  });

  it("keeps every part within the budget and loses no non-whitespace text, for generated inputs", () => {
    // A small deterministic generator (LCG), so a failure reproduces.
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const alphabet = ["a", "b", "é", "😀", "中", " ", "\n", "\n\n", "word "];
    for (let round = 0; round < 200; round += 1) {
      const len = rand(400);
      let text = "";
      for (let i = 0; i < len; i += 1) text += alphabet[rand(alphabet.length)];
      const max = 4 + rand(60);
      const parts = splitReply(text, max);
      for (const p of parts) {
        expect(bytes(p)).toBeLessThanOrEqual(max);
        expect(p.trim()).not.toBe("");
        expect(p).not.toContain("\uFFFD");
      }
      expect(parts.join("").replace(/\s/g, "")).toBe(text.replace(/\s/g, ""));
    }
  });

  it("splits a long reply under the default 60 000-byte budget", () => {
    const para = `${"word ".repeat(2000).trim()}\n\n`;
    const text = para.repeat(10);
    const parts = splitReply(text);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect(bytes(p)).toBeLessThanOrEqual(DEFAULT_MAX_MESSAGE_BYTES);
  });

  it("rejects a budget too small for one code point", () => {
    expect(() => splitReply("x", 3)).toThrow(RangeError);
  });
});

describe("idempotencyKey", () => {
  it("is derived from the event id and part index alone", () => {
    expect(idempotencyKey("evt_01JH7Z9QK3W5Y2", 0)).toBe("reply:evt_01JH7Z9QK3W5Y2:0");
    expect(idempotencyKey("evt_01JH7Z9QK3W5Y2", 2)).toBe(idempotencyKey("evt_01JH7Z9QK3W5Y2", 2));
    expect(idempotencyKey("evt_a", 0)).not.toBe(idempotencyKey("evt_b", 0));
    expect(idempotencyKey("evt_a", 0)).not.toBe(idempotencyKey("evt_a", 1));
  });

  it("hashes ids that are not short printable ASCII, staying within CAP's 1–255 printable ASCII", () => {
    for (const id of ["évènement", "a b", "x".repeat(300), "tab\there"]) {
      const key = idempotencyKey(id, 7);
      expect(key).toMatch(/^reply:sha256-[0-9a-f]{64}:7$/);
      expect(key).toBe(idempotencyKey(id, 7));
      expect(key.length).toBeLessThanOrEqual(255);
    }
  });

  it("rejects a negative or fractional part index", () => {
    expect(() => idempotencyKey("e", -1)).toThrow(RangeError);
    expect(() => idempotencyKey("e", 1.5)).toThrow(RangeError);
  });
});

describe("the stopped note", () => {
  it.each([
    ["requested", "Stopped."],
    ["superseded", "Stopped: a newer message came in."],
    ["wrong  repository\n", "Stopped: wrong repository"],
  ])("for reason %j reads %j", (reason, want) => {
    expect(stopNote(reason)).toBe(want);
  });

  it("has one key per event, apart from the reply's parts", () => {
    expect(stopNoteKey("evt_1")).toBe("stopped:evt_1");
    expect(stopNoteKey("evt_1")).not.toBe(idempotencyKey("evt_1", 0));
    expect(stopNoteKey("é".repeat(300))).toMatch(/^stopped:sha256-[0-9a-f]{64}$/);
  });
});
