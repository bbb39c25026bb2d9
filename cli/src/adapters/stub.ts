/**
 * The stub adapter: no process at all. It answers `(stub) received: <first line of the turn>` so
 * the run loop can be demonstrated and tested end to end without any AI CLI installed. It ignores
 * memory and sessions on purpose.
 */
import type { Adapter } from "./types.js";

export const stubAdapter: Adapter = {
  name: "stub",
  async detect() {
    return { path: "(built in)", version: "1" };
  },
  async spawn(prompt, ctx) {
    ctx.signal?.throwIfAborted();
    const firstLine = prompt.split("\n", 1)[0] ?? "";
    return { text: `(stub) received: ${firstLine}` };
  },
};
