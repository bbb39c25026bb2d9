/**
 * The store's one dedicated LISTEN connection: receives "agent X may have ready events" from every
 * replica's NOTIFY and hands the agent id to the store's listeners. It reconnects on failure with capped
 * backoff; notifications sent while it is down are lost, which is acceptable because they are a latency
 * hint: after a reconnect `onReconnect` tells the wake hub to re-check every waiting poll, and the hub's
 * shared backstop covers anything else. A periodic `SELECT 1` on the connection notices a peer
 * that vanished without closing the socket (which would otherwise leave a deaf, "healthy" listener).
 *
 * The same channel carries the auth-change announcements of token caches (payloads starting with "!",
 * auth-announce.ts); a reconnect reports onReset, since whatever was sent meanwhile is lost.
 *
 * Must never: throw into the process (an error on this connection only schedules a reconnect), or deliver
 * our own notifications (the store already woke local listeners after the commit; `origin` tells them apart).
 */
import pg from "pg";
export interface ListenerOptions {
    config: pg.ClientConfig;
    channel: string;
    /** Payload prefix of this store's own notifications (skipped). */
    origin: string;
    onAgent: (agentId: string) => void;
    /** A payload starting with "!" from another replica (auth announcements, auth-announce.ts), and its sender's origin. */
    onControl?: (message: string, from: string) => void;
    /** Notifications may have been missed: the connection dropped, or listens again after a reconnect. */
    onReset?: () => void;
    onError?: (err: Error) => void;
    /**
     * Called each time the connection is LISTENing again after it was lost: NOTIFYs sent meanwhile went
     * nowhere, so whoever waits for them must re-check (the wake hub sweeps every waiting poll).
     */
    onReconnect?: () => void;
    /** First reconnect delay; doubles up to maxBackoffMs. */
    minBackoffMs?: number;
    maxBackoffMs?: number;
    /** How often the connection proves it is alive; it is replaced when a probe fails or takes longer. */
    heartbeatMs?: number;
}
export declare class NotificationListener {
    private readonly opts;
    private client;
    private closed;
    private timer;
    private heartbeat;
    private backoff;
    /** True once a connection was lost, so the next successful LISTEN is a reconnect. */
    private lost;
    private readonly minBackoff;
    private readonly maxBackoff;
    /** Resolves once the first connection is listening (or fails, leaving reconnects scheduled). */
    readonly ready: Promise<void>;
    constructor(opts: ListenerOptions);
    /** The server process id of the listening connection, null while reconnecting (health, tests). */
    backendPid: number | null;
    private connect;
    private startHeartbeat;
    private stopHeartbeat;
    private schedule;
    private deliver;
    close(): Promise<void>;
}
