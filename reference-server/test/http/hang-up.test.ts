/**
 * HangUp, the long-poll's cancellation: aborts once when the connection closes before the answer was
 * written, never after, and leaves no listener on the response once disposed. A real ServerResponse.
 */
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { HangUp } from "../../src/http/hang-up.js";

function response(): ServerResponse {
  return new ServerResponse(new IncomingMessage(new Socket()));
}

describe("HangUp", () => {
  it.each([
    // [what happens, aborted, listener calls]
    ["the connection closes while the poll waits", false, true, 1],
    ["the connection closes after the answer was written", true, false, 0],
  ])("%s", (_what, answered, aborted, calls) => {
    const res = response();
    const gone = new HangUp(res);
    let n = 0;
    gone.addEventListener("abort", () => n++);
    if (answered) res.end();
    res.emit("close");
    res.emit("close");
    expect(gone.aborted).toBe(aborted);
    expect(n).toBe(calls);
    gone.dispose();
  });

  it("calls no listener that was removed", () => {
    const res = response();
    const gone = new HangUp(res);
    let n = 0;
    const listener = () => n++;
    gone.addEventListener("abort", listener);
    gone.removeEventListener("abort", listener);
    res.emit("close");
    expect([gone.aborted, n]).toEqual([true, 0]);
  });

  it("stops watching the response once disposed", () => {
    const res = response();
    const before = res.listenerCount("close");
    const gone = new HangUp(res);
    expect(res.listenerCount("close")).toBe(before + 1);
    gone.dispose();
    expect(res.listenerCount("close")).toBe(before);
    res.emit("close");
    expect(gone.aborted).toBe(false);
  });
});
