/** Settings come from flags, then CAP_CONFORMANCE_* environment variables, then the fixture file. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/config/errors.js";
import { castOf, parseFixture } from "../src/config/fixture.js";
import { resolveSettings } from "../src/config/settings.js";

const dir = mkdtempSync(join(tmpdir(), "cap-conformance-settings-"));
const token = (n: number) => `cm_agent_${String(n).repeat(64)}`;
const fixtureDoc = {
  baseUrl: "http://file.example:1",
  leaseSeconds: 30,
  maxAttempts: 5,
  agents: [
    { name: "a", token: token(1), podId: "p1" },
    { name: "b", token: token(2), podId: "p1" },
    { name: "c", token: token(3), podId: "p2" },
  ],
  pods: { shared: "p1", other: "p2" },
};
const fixturePath = join(dir, "fixture.json");
writeFileSync(fixturePath, JSON.stringify(fixtureDoc));

describe("resolving settings", () => {
  it("takes values from the fixture file when nothing else says otherwise", async () => {
    const s = await resolveSettings({ fixture: fixturePath }, {});
    expect(s).toMatchObject({
      urls: ["http://file.example:1"],
      leaseSeconds: 30,
      maxAttempts: 5,
      timeScale: 1,
      level: "should",
    });
  });

  it("lets environment variables win over the file", async () => {
    const env = {
      CAP_CONFORMANCE_FIXTURE: fixturePath,
      CAP_CONFORMANCE_URL: "http://env.example:2, http://env.example:3",
      CAP_CONFORMANCE_LEASE_SECONDS: "2",
      CAP_CONFORMANCE_STRICT: "true",
      CAP_CONFORMANCE_ONLY: "auth.*,CAP-EVT-*",
      CAP_CONFORMANCE_REPORT: "json=out/r.json",
    };
    const s = await resolveSettings({}, env);
    expect(s).toMatchObject({
      urls: ["http://env.example:2", "http://env.example:3"],
      leaseSeconds: 2,
      strict: true,
      only: ["auth.*", "CAP-EVT-*"],
      reports: [{ format: "json", path: "out/r.json" }],
    });
  });

  it("lets flags win over environment variables", async () => {
    const env = {
      CAP_CONFORMANCE_URL: "http://env.example:2",
      CAP_CONFORMANCE_LEASE_SECONDS: "2",
      CAP_CONFORMANCE_LEVEL: "must",
    };
    const s = await resolveSettings(
      { fixture: fixturePath, url: ["http://flag.example:4/"], leaseSeconds: "3", level: "should" },
      env,
    );
    expect(s).toMatchObject({ urls: ["http://flag.example:4"], leaseSeconds: 3, level: "should" });
  });

  it("takes the store-outage hook from the fixture, the environment or flags, in that rising order", async () => {
    const path = join(dir, "fixture-outage.json");
    writeFileSync(path, JSON.stringify({ ...fixtureDoc, storeOutage: { down: "f-down", up: "f-up" } }));
    expect((await resolveSettings({ fixture: path }, {})).storeOutage).toEqual({
      down: "f-down",
      up: "f-up",
    });
    const env = { CAP_CONFORMANCE_STORE_DOWN_CMD: "e-down", CAP_CONFORMANCE_STORE_UP_CMD: "e-up" };
    expect((await resolveSettings({ fixture: path }, env)).storeOutage).toEqual({
      down: "e-down",
      up: "e-up",
    });
    const flags = { fixture: fixturePath, storeDownCmd: "x-down", storeUpCmd: "x-up" };
    expect((await resolveSettings(flags, env)).storeOutage).toEqual({ down: "x-down", up: "x-up" });
    expect((await resolveSettings({ fixture: fixturePath }, {})).storeOutage).toBeUndefined();
  });

  const bad: [string, Parameters<typeof resolveSettings>[0], RegExp][] = [
    ["a store-down command without a store-up command", { fixture: fixturePath, storeDownCmd: "x" }, /both/],
    ["no fixture", {}, /--fixture/],
    ["a missing fixture file", { fixture: join(dir, "nope.json") }, /cannot read fixture/],
    ["an unknown report format", { fixture: fixturePath, report: ["pdf=x.pdf"] }, /FORMAT=PATH/],
    ["a zero time scale", { fixture: fixturePath, timeScale: "0" }, /--time-scale/],
    ["an unknown level", { fixture: fixturePath, level: "may" }, /--level/],
    ["an unknown claimed feature", { fixture: fixturePath, claim: ["webhooks"] }, /unknown feature/],
    ["a non-http URL", { fixture: fixturePath, url: ["ftp://x"] }, /not an http/],
  ];
  for (const [what, flags, message] of bad)
    it(`refuses ${what} with a configuration error`, async () => {
      await expect(resolveSettings(flags, {})).rejects.toThrow(ConfigError);
      await expect(resolveSettings(flags, {})).rejects.toThrow(message);
    });
});

describe("parsing a fixture", () => {
  it("accepts pods as podId, pods or podIds and infers the shared pod", () => {
    const f = parseFixture({
      baseUrl: "http://k",
      agents: [
        { name: "a", token: token(1), pods: ["p1", "p9"] },
        { name: "b", token: token(2), podIds: ["p1"] },
        { name: "c", token: token(3), podId: "p2" },
      ],
    });
    expect(f.pods.shared).toBe("p1");
    const cast = castOf(f);
    expect([cast.a.name, cast.b.name, cast.c.name]).toEqual(["a", "b", "c"]);
  });

  it("refuses a fixture without a third agent outside the shared pod", () => {
    const doc = { ...fixtureDoc, agents: fixtureDoc.agents.slice(0, 2) };
    expect(() => parseFixture(doc)).toThrow(/third agent/);
  });

  it("reads the optional human and revoked token, the human's routes defaulting to the reference kernel's", () => {
    const f = parseFixture({ ...fixtureDoc, human: { token: "cm_user_x" }, revokedToken: token(4) });
    expect(f.human).toEqual({
      token: "cm_user_x",
      postPath: "/api/pods/{podId}/messages",
      cancelPath: "/api/pods/{podId}/events/{eventId}/cancel",
      installationPath: "/api/registry/pods/{podId}/agents/{agentName}",
      queuePath: "/api/admin/pods/{podId}/queue",
    });
    expect(f.revokedToken).toBe(token(4));
  });

  it("refuses a store-outage hook without both commands", () => {
    expect(() => parseFixture({ ...fixtureDoc, storeOutage: { down: "x" } })).toThrow(/"down" and "up"/);
    expect(parseFixture({ ...fixtureDoc, storeOutage: { down: "x", up: "y" } }).storeOutage).toEqual({
      down: "x",
      up: "y",
    });
  });

  it("reads the human's routes when the fixture names them", () => {
    const paths = {
      postPath: "/h/{podId}/say",
      cancelPath: "/h/{podId}/stop/{eventId}",
      installationPath: "/h/{podId}/agents/{agentName}",
      queuePath: "/ops/{podId}/queue",
    };
    const f = parseFixture({ ...fixtureDoc, human: { token: "cm_user_x", ...paths } });
    expect(f.human).toEqual({ token: "cm_user_x", ...paths });
  });
});
