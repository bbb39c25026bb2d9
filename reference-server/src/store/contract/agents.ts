/** Store operations for agents: registry entries, identities, installations, runtime tokens (semantics: ../README.md). */
import type {
  AgentIdentityRecord,
  DoubleTexting,
  InstallationRecord,
  RegistryAgentRecord,
  RuntimeTokenAuth,
  RuntimeTokenRecord,
} from "../records.js";

export interface AgentsStore {
  /** Insert or replace by name. */
  putRegistryAgent(agent: RegistryAgentRecord): Promise<void>;
  getRegistryAgent(name: string): Promise<RegistryAgentRecord | null>;
  listRegistryAgents(): Promise<RegistryAgentRecord[]>;
  /** Returns the existing identity for (agentName, instanceId) or inserts the given one. Race-safe. */
  ensureAgentIdentity(identity: AgentIdentityRecord): Promise<AgentIdentityRecord>;
  getAgentIdentity(id: string): Promise<AgentIdentityRecord | null>;
  findAgentIdentity(agentName: string, instanceId: string): Promise<AgentIdentityRecord | null>;
  /** Fails (throws) if the identity already has an active installation in the pod (unique). */
  insertInstallation(installation: InstallationRecord): Promise<void>;
  getInstallation(id: string): Promise<InstallationRecord | null>;
  findActiveInstallation(agentId: string, podId: string): Promise<InstallationRecord | null>;
  /** Installations of a pod (optionally only active ones), oldest first. */
  listInstallations(filter: {
    podId?: string;
    agentId?: string;
    activeOnly?: boolean;
  }): Promise<InstallationRecord[]>;
  /** Sets the double-texting policy of an active installation; the updated record, or null if none. */
  updateInstallation(input: { id: string; doubleTexting: DoubleTexting }): Promise<InstallationRecord | null>;
  /** active → uninstalled; false when not found or not active. */
  markInstallationUninstalled(input: { id: string; now: number; by: string }): Promise<boolean>;

  // runtime tokens
  insertRuntimeToken(token: RuntimeTokenRecord): Promise<void>;
  /** The token with its identity, installation and issuer, whatever their states (the service judges). */
  findRuntimeTokenByHash(hash: string): Promise<RuntimeTokenAuth | null>;
  getRuntimeToken(id: string): Promise<RuntimeTokenRecord | null>;
  listRuntimeTokens(filter: { installationId?: string; agentId?: string }): Promise<RuntimeTokenRecord[]>;
  /** Sets revokedAt if not yet revoked; false when not found or already revoked. */
  revokeRuntimeToken(id: string, now: number): Promise<boolean>;
  revokeRuntimeTokensOfInstallation(installationId: string, now: number): Promise<number>;
  revokeRuntimeTokensIssuedBy(userId: string, now: number): Promise<number>;
  /** Revokes the live tokens this human issued through installations in this pod; the count revoked. */
  revokeRuntimeTokensIssuedInPod(input: { userId: string; podId: string; now: number }): Promise<number>;
  touchRuntimeToken(id: string, now: number): Promise<void>;
}
