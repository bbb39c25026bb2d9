/**
 * The CLI's admin calls, on `@commonly/cap-sdk/admin`, against the real reference kernel over a real
 * socket: the answers it names ("existing", "gone") and the CliErrors a person sees.
 */
import { type AddressInfo, createServer } from "node:net";
import { startKernel, type TestKernel } from "@commonly/cap-kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliError } from "../../src/errors.js";
import { AdminApiError, createAdminApi } from "../../src/kernel/admin-api.js";

/** A loopback port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

let kernel: TestKernel;
beforeAll(async () => {
  kernel = await startKernel();
});
afterAll(() => kernel?.stop());

describe("the CLI's admin API", () => {
  it("publishes, installs (then finds it existing), issues, revokes and uninstalls (then finds them gone)", async () => {
    const api = createAdminApi(`${kernel.url}/`, kernel.human.token);
    expect(api.url).toBe(kernel.url);
    expect(await api.me()).toMatchObject({ name: "lily", isAdmin: true });
    await api.publish({ name: "adm1", displayName: "adm1" });
    const where = { agentName: "adm1", podId: kernel.podId, instanceId: "default" };
    expect(await api.install(where)).toBe("installed");
    expect(await api.install(where)).toBe("existing");
    const issued = await api.issueToken(kernel.podId, "adm1", { instanceId: "default", label: "t" });
    expect(issued.token).toMatch(/^cm_agent_[0-9a-f]{64}$/);
    expect(await api.revokeToken(kernel.podId, "adm1", issued.id)).toBe("revoked");
    expect(await api.revokeToken(kernel.podId, "adm1", "rtk_never_issued")).toBe("gone");
    expect(await api.uninstall(kernel.podId, "adm1", "default")).toBe("uninstalled");
    expect(await api.uninstall(kernel.podId, "adm1", "default")).toBe("gone");
  });

  it("keeps the kernel's status and documented code on a refusal", async () => {
    const api = createAdminApi(kernel.url, kernel.human.token);
    const err = await api
      .install({ agentName: "never-published", podId: kernel.podId, instanceId: "default" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdminApiError);
    expect(err).toMatchObject({ code: "kernel_refused", status: 404, kernelCode: "agent_not_found" });
    expect((err as Error).message).toContain("POST /api/registry/install");
  });

  it("says not_logged_in for a rejected token and kernel_unreachable when nothing answers", async () => {
    const rejected = await createAdminApi(kernel.url, `cm_user_${"0".repeat(64)}`)
      .me()
      .catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(CliError);
    expect(rejected).toMatchObject({ code: "not_logged_in" });
    const closed = await closedPort();
    const down = await createAdminApi(`http://127.0.0.1:${closed}`, kernel.human.token)
      .me()
      .catch((e: unknown) => e);
    expect(down).toMatchObject({ code: "kernel_unreachable" });
    expect((down as Error).message).toContain(
      `cannot reach the kernel at http://127.0.0.1:${closed} (ECONNREFUSED)`,
    );
  });
});
