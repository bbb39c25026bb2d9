/** How long a learnt floor is used; past it the claim reads from the start again and learns anew. */
export const FLOOR_MAX_AGE_MS = 5000;
export function claimFloors(maxAgeMs = FLOOR_MAX_AGE_MS) {
    const floors = new Map();
    const generations = new Map();
    let epoch = 0; // bumped by dropAll; part of every generation
    const generationOf = (agentId) => epoch * 2 ** 26 + (generations.get(agentId) ?? 0);
    return {
        start(agentId, now) {
            const f = floors.get(agentId);
            const fresh = f !== undefined && now - f.at <= maxAgeMs && now >= f.at;
            return fresh
                ? { from: f.seq, generation: generationOf(agentId), since: f.at }
                : { from: 0, generation: generationOf(agentId), since: now };
        },
        learn(agentId, { generation, since }, seq) {
            if (generation === generationOf(agentId))
                floors.set(agentId, { seq, at: since });
        },
        drop(agentId) {
            floors.delete(agentId);
            generations.set(agentId, ((generations.get(agentId) ?? 0) + 1) % 2 ** 26);
        },
        dropAll() {
            floors.clear();
            generations.clear();
            epoch++;
        },
    };
}
//# sourceMappingURL=claim-floors.js.map