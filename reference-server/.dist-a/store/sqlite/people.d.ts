/**
 * SQLite ops for humans: users, their API tokens, pods and pod members.
 */
import type { PeopleOpName } from "../contract.js";
import type { SqliteContext, SyncOps } from "./types.js";
type PeopleOps = Pick<SyncOps, PeopleOpName>;
export declare function peopleOps({ db, authChanged }: SqliteContext): PeopleOps;
export {};
