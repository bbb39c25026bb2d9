/**
 * The object a test holds for a running kernel (process or in-process): its URL, store, the provisioned
 * human, pod and agents, and what a test does as that human or as the operator — through the admin API
 * typed by the spec, and CAP with an agent's token.
 */
import { createRequire } from "node:module";
import { adminApi, adminClient } from "./admin.js";
import { eventually } from "./deadline.js";
export function testKernel(url, db, made, life) {
    const user = made.users[0] ?? { id: "", name: "", token: "" };
    const podId = made.pods[0]?.id ?? "";
    const agents = {};
    for (const a of made.agents)
        agents[a.name] = {
            name: a.name,
            instanceId: a.instanceId,
            podId: a.podId,
            token: a.token,
            tokenId: a.tokenId,
        };
    // The URL is known once the kernel listens and stays the same across restart (same port).
    const admin = adminClient(url(), user.token);
    const api = adminApi(url(), user.token);
    const pod = { params: { path: { podId } } };
    const k = {
        get url() {
            return url();
        },
        db,
        podId,
        human: { id: user.id, name: user.name, token: user.token },
        agents,
        api,
        admin,
        output: () => life.process()?.output() ?? "",
        get process() {
            return life.process();
        },
        app: life.app,
        async say(content) {
            return (await api.POST("/api/pods/{podId}/messages", { ...pod, body: { content } })).data.id;
        },
        async messages() {
            const { data } = await api.GET("/api/pods/{podId}/messages", {
                params: { path: { podId }, query: { limit: 100 } },
            });
            return data.messages;
        },
        replyTo(messageId, agent, timeoutMs = 30_000) {
            return eventually(async () => (await k.messages()).find((m) => m.replyToMessageId === messageId && m.author.name === agent), `${agent} replies to ${messageId}`, { timeoutMs, everyMs: 50 });
        },
        async queue(agent) {
            const { data } = await api.GET("/api/admin/pods/{podId}/queue", pod);
            return (data.agents.find((a) => a.agentName === agent)?.events ?? []);
        },
        async state(agent, eventId) {
            return (await k.queue(agent)).find((e) => e.id === eventId);
        },
        async emit(agent, type, payload = {}) {
            return (await admin.post("/api/admin/events", { agentName: agent, podId, type, payload })).id;
        },
        async tokens(agent) {
            return (await admin.get(`/api/registry/pods/${podId}/agents/${agent}/runtime-tokens`)).tokens;
        },
        async revokeToken(agent, tokenId) {
            const id = tokenId ?? agents[agent]?.tokenId;
            await admin.delete(`/api/registry/pods/${podId}/agents/${agent}/runtime-tokens/${id}`);
        },
        async cap(token, method, path, body, headers = {}) {
            const response = await fetch(`${url()}/api/agents/runtime${path}`, {
                method,
                headers: {
                    ...headers,
                    authorization: `Bearer ${token}`,
                    ...(body === undefined ? {} : { "content-type": "application/json" }),
                },
                ...(body === undefined ? {} : { body: JSON.stringify(body) }),
            });
            const text = await response.text();
            // biome-ignore lint/suspicious/noExplicitAny: the caller names the body's type.
            return { status: response.status, body: (text ? JSON.parse(text) : undefined) };
        },
        lockStore() {
            if (!db.startsWith("sqlite:") || db === "sqlite::memory:")
                throw new Error(`lockStore stages an outage of an SQLite file, not of ${db}`);
            // better-sqlite3 as the kernel itself resolves it.
            const Database = createRequire(import.meta.url)("better-sqlite3");
            const other = new Database(db.slice("sqlite:".length));
            other.exec("BEGIN IMMEDIATE");
            return () => {
                other.exec("ROLLBACK");
                other.close();
            };
        },
        kill: life.kill,
        restart: life.restart,
        stop: life.stop,
    };
    return k;
}
//# sourceMappingURL=test-kernel.js.map