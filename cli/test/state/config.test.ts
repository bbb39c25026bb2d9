import { statSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, resolveInstance, setInstance } from "../../src/state/config.js";
import { configPath } from "../../src/state/home.js";
import { tempHome } from "../helpers/temp-home.js";

let t: ReturnType<typeof tempHome>;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

describe("config.json", () => {
  it("starts empty, makes the first instance the default, and saves 0600", async () => {
    expect(await loadConfig(t.home)).toEqual({ instances: {} });
    await setInstance(t.home, "local", { url: "http://127.0.0.1:7070/", token: "cm_user_abc" });
    await setInstance(t.home, "dev", { url: "https://dev.example", token: "cm_user_def" });
    const config = await loadConfig(t.home);
    expect(config).toEqual({
      instances: {
        local: { url: "http://127.0.0.1:7070", token: "cm_user_abc" },
        dev: { url: "https://dev.example", token: "cm_user_def" },
      },
      defaultInstance: "local",
    });
    expect(statSync(configPath(t.home)).mode & 0o777).toBe(0o600);
  });

  it("switches the default only when asked", async () => {
    await setInstance(t.home, "a", { url: "http://a", token: "t" });
    await setInstance(t.home, "b", { url: "http://b", token: "t" }, { makeDefault: true });
    expect((await loadConfig(t.home)).defaultInstance).toBe("b");
  });

  it("resolves an instance by saved name, by URL, or the default", async () => {
    const config = await setInstance(t.home, "local", { url: "http://127.0.0.1:7070", token: "tok" });
    expect(resolveInstance(config)).toEqual({ name: "local", url: "http://127.0.0.1:7070", token: "tok" });
    expect(resolveInstance(config, "local")?.name).toBe("local");
    expect(resolveInstance(config, "http://127.0.0.1:7070/")?.name).toBe("local");
    expect(resolveInstance(config, "http://elsewhere")).toBeNull();
    expect(resolveInstance({ instances: {} })).toBeNull();
  });
});
