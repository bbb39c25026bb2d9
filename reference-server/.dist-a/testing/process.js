/**
 * Child processes for end-to-end tests: spawned in their own process group (so a shell script's curl dies
 * with it), output captured for failure messages, stopped with SIGTERM and, after a deadline, SIGKILL;
 * a free port, and waiting until a port accepts connections.
 */
import { spawn } from "node:child_process";
import { connect, createServer } from "node:net";
import { eventually } from "./deadline.js";
/** A port nobody listens on now (for a process that must come back on the same port). */
export async function freePort() {
    const server = createServer();
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address();
    await new Promise((r) => server.close(() => r()));
    return port;
}
/** Resolves once `host:port` accepts a TCP connection; fails at the deadline. */
export async function waitForPort(port, host = "127.0.0.1", timeoutMs = 20_000) {
    await eventually(() => new Promise((resolve) => {
        const socket = connect({ port, host });
        socket.once("connect", () => {
            socket.destroy();
            resolve(true);
        });
        socket.once("error", () => resolve(false));
    }), `${host}:${port} accepts connections`, { timeoutMs });
}
export function spawnProcess(command, args, options = {}) {
    const child = spawn(command, args, {
        cwd: options.cwd,
        env: options.env ?? process.env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const listeners = new Set();
    const onData = (chunk) => {
        out += chunk.toString("utf8");
        for (const l of listeners)
            l();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    const exited = new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null)
            resolve(child.exitCode);
        child.once("exit", (code) => resolve(code));
        child.once("error", () => resolve(null));
    });
    const label = options.name ?? command;
    return {
        child,
        exited,
        output: () => out,
        waitForOutput(pattern, timeoutMs = 20_000) {
            return new Promise((resolve, reject) => {
                const check = () => {
                    const m = out.match(pattern);
                    if (m) {
                        done();
                        resolve(m);
                    }
                };
                const timer = setTimeout(() => {
                    done();
                    reject(new Error(`${label}: no output matching ${pattern} within ${timeoutMs} ms. Output:\n${out}`));
                }, timeoutMs);
                const onExit = () => {
                    done();
                    reject(new Error(`${label} exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}. Output:\n${out}`));
                };
                const done = () => {
                    clearTimeout(timer);
                    listeners.delete(check);
                    child.off("exit", onExit);
                };
                listeners.add(check);
                child.once("exit", onExit);
                check();
            });
        },
        async stop(graceMs = 10_000, signal = "SIGTERM") {
            if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined)
                return;
            const group = -child.pid;
            try {
                process.kill(group, signal);
            }
            catch {
                return;
            }
            const timer = setTimeout(() => {
                try {
                    process.kill(group, "SIGKILL");
                }
                catch {
                    // already gone
                }
            }, graceMs);
            await exited;
            clearTimeout(timer);
        },
    };
}
//# sourceMappingURL=process.js.map