/**
 * The profile is one setting of the kernel process: `--profile` wins over `CAP_PROFILE`, the default is
 * `cap`, and an unknown name stops `serve` at start instead of serving some other dialect.
 */
import { describe, expect, it } from "vitest";
import { api, startKernel } from "../helpers/process.js";

describe("--profile / CAP_PROFILE", () => {
  it("takes CAP_PROFILE, lets --profile win over it, and names the profile in the banner and /readyz", async () => {
    const fromEnv = await startKernel(["--db", "sqlite::memory:"], { CAP_PROFILE: "production" });
    const fromFlag = await startKernel(["--db", "sqlite::memory:", "--profile", "cap"], {
      CAP_PROFILE: "production",
    });
    try {
      expect(fromEnv.stderr()).toMatch(/profile production\)/);
      expect((await api(`${fromEnv.url}/readyz`, null)).json).toMatchObject({ profile: "production" });
      expect((await api(`${fromFlag.url}/readyz`, null)).json).toMatchObject({ profile: "cap" });
    } finally {
      fromEnv.proc.kill("SIGKILL");
      fromFlag.proc.kill("SIGKILL");
    }
  });

  it("refuses an unknown profile at start", async () => {
    await expect(startKernel(["--db", "sqlite::memory:", "--profile", "prod"])).rejects.toThrow(
      /--profile must be one of cap, production, got "prod"/,
    );
  });
});
