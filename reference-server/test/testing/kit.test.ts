import { describe, expect, it } from "vitest";
import { eventually, spawnProcess } from "../../src/testing/index.js";

describe("eventually", () => {
  it("resolves as soon as the probe returns a value", async () => {
    let n = 0;
    expect(await eventually(() => (++n >= 3 ? n : undefined), "the third probe", { everyMs: 1 })).toBe(3);
  });

  it("fails at the deadline naming what it waited for and the last error", async () => {
    const probe = () => {
      throw new Error("kernel down");
    };
    await expect(eventually(probe, "the reply", { timeoutMs: 50, everyMs: 10 })).rejects.toThrow(
      /waiting until the reply \(last error: kernel down\)/,
    );
  });
});

describe("spawnProcess", () => {
  it("waits for output and stops the whole process group", async () => {
    const p = spawnProcess("bash", ["-c", "echo ready; sleep 30 & wait"], { name: "sleeper" });
    expect((await p.waitForOutput(/ready/))[0]).toBe("ready");
    await p.stop(2_000);
    expect(p.child.signalCode ?? p.child.exitCode).not.toBeNull();
  });

  it("rejects when the process exits before printing what is awaited", async () => {
    const p = spawnProcess("bash", ["-c", "echo bye; exit 3"], { name: "quitter" });
    await expect(p.waitForOutput(/never/)).rejects.toThrow(/quitter exited \(3\)/);
  });
});
