/**
 * The registry, agent identities, installations and runtime tokens on PostgreSQL. "Oldest first" is
 * insertion order (`seq`).
 *
 * Must never: judge a token's validity (findRuntimeTokenByHash returns the token with its identity,
 * installation and issuer whatever their states; the tokens service decides).
 */
import type { AgentOpName, StoreOps } from "../contract.js";
import type { Db } from "./db.js";
type AgentOps = Pick<StoreOps, AgentOpName>;
export declare function agentOps(db: Db): AgentOps;
export {};
