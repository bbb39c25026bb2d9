/**
 * The few kernel admin routes `commonly` calls with the human's token (login, attach, detach):
 * who am I, publish, install, issue / revoke a runtime token, uninstall. Not CAP — the run loop
 * never uses this (ADR-005 invariant 3: CAP-only in the hot path).
 *
 * Failures become CliErrors a person can act on: no HTTP answer → kernel_unreachable, 401 →
 * not_logged_in, anything else non-2xx → AdminApiError (a kernel_refused CliError that keeps the
 * status and the kernel's error `code`, so callers can treat `already_installed` as fine).
 */
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

export interface Me {
  id: string;
  name: string;
  isAdmin: boolean;
}

export interface IssuedToken {
  id: string;
  token: string;
  installationId: string;
}

export interface AdminApi {
  readonly url: string;
  me(): Promise<Me>;
  publish(manifest: { name: string; displayName?: string; description?: string }): Promise<void>;
  install(input: { agentName: string; podId: string; instanceId: string }): Promise<"installed" | "existing">;
  issueToken(
    podId: string,
    agentName: string,
    input: { instanceId: string; label: string },
  ): Promise<IssuedToken>;
  revokeToken(podId: string, agentName: string, tokenId: string): Promise<"revoked" | "gone">;
  uninstall(podId: string, agentName: string, instanceId: string): Promise<"uninstalled" | "gone">;
}

const TIMEOUT_MS = 15_000;

function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if ((err as Error).name === "TimeoutError") return `no answer within ${TIMEOUT_MS / 1000} s`;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

export function createAdminApi(url: string, token: string): AdminApi {
  const base = url.replace(/\/+$/, "");
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${base}/api${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new CliError(
        "kernel_unreachable",
        `cannot reach the kernel at ${base} (${networkReason(err)}). Is it running, and is the URL right? ` +
          "Check with `commonly login --url <url>`.",
        { cause: err },
      );
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (res.ok) return parsed as T;
    const err = (parsed ?? {}) as { code?: string; message?: string };
    const code = err.code ?? `http_${res.status}`;
    if (res.status === 401) {
      throw new CliError(
        "not_logged_in",
        `the kernel at ${base} rejected your login token (${code}); log in again: ` +
          `\`commonly login --url ${base} --token <cm_user_…>\``,
      );
    }
    throw new AdminApiError(
      res.status,
      code,
      `${method} /api${path}: ${res.status} ${code}: ${err.message ?? text}`,
    );
  }

  const enc = encodeURIComponent;
  const agentPath = (podId: string, agentName: string) =>
    `/registry/pods/${enc(podId)}/agents/${enc(agentName)}`;
  return {
    url: base,
    me: () => call<Me>("GET", "/users/me"),
    async publish(manifest) {
      await call("POST", "/registry/publish", manifest);
    },
    async install(input) {
      try {
        await call("POST", "/registry/install", input);
        return "installed";
      } catch (err) {
        if (err instanceof AdminApiError && err.kernelCode === "already_installed") return "existing";
        throw err;
      }
    },
    issueToken: (podId, agentName, input) =>
      call<IssuedToken>("POST", `${agentPath(podId, agentName)}/runtime-tokens`, input),
    async revokeToken(podId, agentName, tokenId) {
      try {
        await call("DELETE", `${agentPath(podId, agentName)}/runtime-tokens/${enc(tokenId)}`);
        return "revoked";
      } catch (err) {
        if (err instanceof AdminApiError && err.status === 404) return "gone";
        throw err;
      }
    },
    async uninstall(podId, agentName, instanceId) {
      try {
        await call("DELETE", `${agentPath(podId, agentName)}?instanceId=${enc(instanceId)}`);
        return "uninstalled";
      } catch (err) {
        if (err instanceof AdminApiError && err.kernelCode === "installation_not_found") return "gone";
        throw err;
      }
    },
  };
}
