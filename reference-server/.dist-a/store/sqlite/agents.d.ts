/**
 * SQLite ops for agents: registry entries, agent identities, installations and runtime tokens.
 */
import type { AgentOpName } from "../contract.js";
import type { SqliteContext, SyncOps } from "./types.js";
type AgentOps = Pick<SyncOps, AgentOpName>;
/** Runs an insert, turning a uniqueness violation into the contract's StoreConflictError. */
export declare function insertOrConflict(run: () => unknown, what: string): void;
export declare function agentOps({ db, authChanged, freshen, undoable }: SqliteContext): AgentOps;
export {};
