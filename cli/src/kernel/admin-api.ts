/**
 * The few kernel admin routes `commonly` calls with the human's token (login, attach, detach):
 * who am I, publish, install, issue / revoke a runtime token, uninstall. Not CAP — the run loop
 * never uses this (ADR-005 invariant 3: CAP-only in the hot path).
 *
 * The HTTP side is `@commonly/cap-sdk/admin`, the openapi-fetch client typed by the admin document's
 * generated types; this module only names the calls and turns failures into CliErrors a person can act
 * on.
 *
 * Failures become CliErrors a person can act on: no HTTP answer → kernel_unreachable, 401 →
 * not_logged_in, anything else non-2xx → AdminApiError (a kernel_refused CliError that keeps the
 * status and the kernel's error `code`, so callers can treat `already_installed` as fine).
 */

import { CapHttpError, CapSdkError } from "@commonly/cap-sdk";
import { type AdminSchemas, createAdminClient, unwrap } from "@commonly/cap-sdk/admin";
import { CliError } from "../errors.js";

export class AdminApiError extends CliError {
  readonly status: number;
  readonly kernelCode: string;
  constructor(status: number, kernelCode: string, message: string) {
    super("kernel_refused", message);
    this.status = status;
    this.kernelCode = kernelCode;
  }
}

export type Me = AdminSchemas["User"];
export type IssuedToken = AdminSchemas["IssuedRuntimeToken"];

export interface AdminApi {
  readonly url: string;
  me(): Promise<Me>;
  publish(manifest: AdminSchemas["PublishRequest"]): Promise<void>;
  install(input: AdminSchemas["InstallRequest"]): Promise<"installed" | "existing">;
  issueToken(
    podId: string,
    agentName: string,
    input: AdminSchemas["IssueRuntimeTokenRequest"],
  ): Promise<IssuedToken>;
  revokeToken(podId: string, agentName: string, tokenId: string): Promise<"revoked" | "gone">;
  uninstall(podId: string, agentName: string, instanceId: string): Promise<"uninstalled" | "gone">;
}

const TIMEOUT_MS = 15_000;

function networkReason(err: CapSdkError): string {
  if (err.code === "timeout") return `no answer within ${TIMEOUT_MS / 1000} s`;
  const cause = (err.cause as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  return cause?.code ?? cause?.message ?? err.message;
}

export function createAdminApi(url: string, token: string): AdminApi {
  const base = url.replace(/\/+$/, "");
  const client = createAdminClient({ baseUrl: base, token, timeoutMs: TIMEOUT_MS });

  async function call<T>(request: Promise<{ data?: T; response: Response }>): Promise<T> {
    try {
      return await unwrap(request);
    } catch (err) {
      if (err instanceof CapHttpError) {
        if (err.status === 401)
          throw new CliError(
            "not_logged_in",
            `the kernel at ${base} rejected your login token (${err.code}); log in again: ` +
              `\`commonly login --url ${base} --token <cm_user_…>\``,
          );
        throw new AdminApiError(err.status, err.code, err.message);
      }
      if (err instanceof CapSdkError && err.code !== "invalid_response")
        throw new CliError(
          "kernel_unreachable",
          `cannot reach the kernel at ${base} (${networkReason(err)}). Is it running, and is the URL right? ` +
            "Check with `commonly login --url <url>`.",
          { cause: err },
        );
      throw err;
    }
  }

  const agent = (podId: string, agentName: string) => ({ path: { podId, agentName } });
  return {
    url: base,
    me: () => call(client.GET("/api/users/me")),
    async publish(manifest) {
      await call(client.POST("/api/registry/publish", { body: manifest }));
    },
    async install(input) {
      try {
        await call(client.POST("/api/registry/install", { body: input }));
        return "installed";
      } catch (err) {
        if (err instanceof AdminApiError && err.kernelCode === "already_installed") return "existing";
        throw err;
      }
    },
    issueToken: (podId, agentName, input) =>
      call(
        client.POST("/api/registry/pods/{podId}/agents/{agentName}/runtime-tokens", {
          params: agent(podId, agentName),
          body: input,
        }),
      ),
    async revokeToken(podId, agentName, tokenId) {
      try {
        await call(
          client.DELETE("/api/registry/pods/{podId}/agents/{agentName}/runtime-tokens/{tokenId}", {
            params: { path: { podId, agentName, tokenId } },
          }),
        );
        return "revoked";
      } catch (err) {
        if (err instanceof AdminApiError && err.status === 404) return "gone";
        throw err;
      }
    },
    async uninstall(podId, agentName, instanceId) {
      try {
        await call(
          client.DELETE("/api/registry/pods/{podId}/agents/{agentName}", {
            params: { ...agent(podId, agentName), query: { instanceId } },
          }),
        );
        return "uninstalled";
      } catch (err) {
        if (err instanceof AdminApiError && err.kernelCode === "installation_not_found") return "gone";
        throw err;
      }
    },
  };
}
