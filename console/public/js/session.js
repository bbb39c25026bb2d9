// @ts-check
/**
 * What the panels share about the signed-in person: the admin API client, who they are, the chosen pod, the kernel's
 * clock offset and the pod's agents from the last refresh, and where the token and pod are remembered
 * (this browser's localStorage only).
 */

const TOKEN_KEY = "cap-console.token";
const POD_KEY = "cap-console.pod";

/**
 * @typedef {{agentName: string, instanceId: string, events: any[]}} AgentQueue
 * @typedef {{
 *   api: ReturnType<typeof import("./api.js").createApi> | null,
 *   me: {id: string, name?: string} | null,
 *   podId: string | null,
 *   offsetMs: number,
 *   agents: AgentQueue[],
 * }} Session
 * @typedef {{ session: Session, refresh: () => Promise<void> }} PanelContext
 */

/** @returns {Session} */
export function createSession() {
  return { api: null, me: null, podId: null, offsetMs: 0, agents: [] };
}

export const savedToken = () => localStorage.getItem(TOKEN_KEY);
export const saveToken = (/** @type {string} */ token) => localStorage.setItem(TOKEN_KEY, token);
export const forgetToken = () => localStorage.removeItem(TOKEN_KEY);
export const savedPod = () => localStorage.getItem(POD_KEY);
export const savePod = (/** @type {string} */ podId) => localStorage.setItem(POD_KEY, podId);
