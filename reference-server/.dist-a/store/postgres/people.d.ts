/**
 * Users, their API tokens, pods and members on PostgreSQL. "Oldest first" is insertion order (`seq`).
 *
 * Must never: judge a token's validity (findUserTokenByHash returns whatever it finds; services judge).
 */
import type { PeopleOpName, StoreOps } from "../contract.js";
import type { Db } from "./db.js";
type PeopleOps = Pick<StoreOps, PeopleOpName>;
export declare function peopleOps(db: Db): PeopleOps;
export {};
