/**
 * Active installations, read on every post (the fan-out and the poster's own installation), answered from
 * memory. Installations change only through insertInstallation, updateInstallation and
 * markInstallationUninstalled, which drop the cache before they write.
 *
 * Must never: answer from a read that a rollback undid or that another process's commit made untrue
 * (both drop the cache; a foreign commit is found at most LOOK_MS late), or hand out a cached record a
 * caller could change (copies only).
 */
import type { InstallationRecord } from "../contract.js";
import type { SqliteAccelerator } from "./kit.js";

export const installationCacheAccelerator: SqliteAccelerator = {
  name: "installation-cache",
  apply(kit) {
    const activeInPod = new Map<string, InstallationRecord[]>();
    const activeOf = new Map<string, InstallationRecord | null>();
    const drop = () => {
      activeInPod.clear();
      activeOf.clear();
    };
    kit.changes.undoable(drop);
    const plain = { ...kit.sync };
    Object.assign(kit.sync, {
      insertInstallation: (i) => {
        drop();
        plain.insertInstallation(i);
      },
      markInstallationUninstalled: (input) => {
        drop();
        return plain.markInstallationUninstalled(input);
      },
      updateInstallation: (input) => {
        drop();
        return plain.updateInstallation(input);
      },
      findActiveInstallation: (agentId, podId) => {
        kit.changes.freshen();
        const key = `${agentId}\u0000${podId}`;
        let found = activeOf.get(key);
        if (found === undefined) {
          found = plain.findActiveInstallation(agentId, podId);
          activeOf.set(key, found);
        }
        return found === null ? null : { ...found };
      },
      listInstallations: (input) => {
        const { podId, agentId, activeOnly } = input;
        if (podId === undefined || agentId !== undefined || !activeOnly)
          return plain.listInstallations(input);
        kit.changes.freshen();
        let list = activeInPod.get(podId);
        if (!list) {
          list = plain.listInstallations(input);
          activeInPod.set(podId, list);
        }
        return list.map((i) => ({ ...i }));
      },
    } satisfies Partial<typeof kit.sync>);
  },
};
