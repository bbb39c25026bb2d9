/**
 * `cap-kernel demo`: the main job of the README quickstart. Serves the kernel on an SQLite file with a demo
 * pod, prints the URL, a human token and two agent tokens, runs an echo driver for agent "echo" — a real
 * CAP driver in its own process when `--driver` names one (the README quickstart runs the SDK's echo
 * example), else a minimal built-in one — and posts a first human message mentioning @echo so an event
 * visibly flows within seconds.
 */
import { spawn } from "node:child_process";
import { CAP_BASE_PATH } from "@commonly/cap-spec/constants";
import { startEchoDriver } from "../demo/echo-driver.js";
import { operatorCaller } from "../services/deps.js";
import { closeOnSignals, startServer } from "./serve.js";
export const DEMO_DB = "sqlite:.cap-kernel/demo.db";
/** Find-or-create the demo human, pod and agents; issue fresh tokens (tokens are shown once). */
export async function seedDemo(k) {
    const existing = (await k.operator.liveUsers()).find((u) => u.name === "demo" && u.isAdmin);
    let token;
    let userId;
    if (existing) {
        userId = existing.id;
        token = (await k.users.issueToken(existing.id, "demo")).token;
    }
    else {
        const created = await k.users.createUser({ name: "demo", isAdmin: true, tokenLabel: "demo" });
        userId = created.user.id;
        token = created.token;
    }
    const who = operatorCaller({ id: userId, name: "demo" });
    const pod = (await k.operator.findPods("demo"))[0] ?? (await k.pods.createPod(userId, "demo"));
    const agents = {};
    for (const name of ["echo", "helper"]) {
        if (!(await k.registry.get(name)))
            await k.registry.publishAs(userId, true, { name, description: `demo agent ${name}` });
        if (!(await k.registry.findActiveInstallation(pod.id, name)))
            await k.registry.install(who, { agentName: name, podId: pod.id });
        agents[name] = (await k.registry.issueToken(who, pod.id, name, { label: "demo" })).token;
    }
    return { who, humanToken: token, podId: pod.id, echoToken: agents.echo, helperToken: agents.helper };
}
/** A driver process for agent echo; its output is prefixed so it reads apart from the kernel's. */
function startDriverProcess(command, url, token, say) {
    const child = spawn(command, {
        shell: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, CAP_URL: url, CAP_TOKEN: token },
    });
    const relay = (chunk) => {
        for (const line of chunk.toString().split("\n"))
            if (line.trim())
                say(`[driver] ${line}`);
    };
    child.stdout.on("data", relay);
    child.stderr.on("data", relay);
    child.on("exit", (code, signal) => {
        if (signal !== "SIGTERM")
            say(`[driver] exited (${signal ?? `code ${code}`})`);
    });
    return {
        async stop() {
            if (child.exitCode !== null || child.signalCode !== null)
                return;
            const exited = new Promise((resolve) => child.once("exit", resolve));
            child.kill("SIGTERM");
            await exited;
        },
    };
}
export async function demoCommand(flags) {
    const { app, url, settings } = await startServer({
        ...flags,
        db: flags.db ?? process.env.CAP_DB ?? DEMO_DB,
        logLevel: flags.logLevel ?? "warn",
    });
    const seed = await seedDemo(app.kernel);
    const say = (line) => process.stdout.write(`${line}\n`);
    const driver = flags.driver
        ? startDriverProcess(flags.driver, url, seed.echoToken, say)
        : startEchoDriver({
            baseUrl: url,
            token: seed.echoToken,
            name: "echo",
            log: (l) => say(`[driver] ${l}`),
        });
    say(`cap-kernel demo is running at ${url}  (store ${app.kernel.health.storeKind}, profile ${settings.profile}; Ctrl-C to stop)`);
    say("");
    say(`  pod id         ${seed.podId}`);
    say(`  human token    ${seed.humanToken}`);
    say(`  agent "echo"   ${seed.echoToken}   (answered by ${flags.driver ? "the driver process" : "the built-in echo driver"})`);
    say(`  agent "helper" ${seed.helperToken}   (yours: drive it with any CAP driver)`);
    say("");
    say(`  dev console    ${url}/console/#token=${seed.humanToken}`);
    say(`  docs           ${url}/docs/`);
    say("");
    say("Talk to echo as the human:");
    say(`  curl -s -X POST ${url}/api/pods/${seed.podId}/messages -H 'authorization: Bearer ${seed.humanToken}' \\`);
    say(`       -H 'content-type: application/json' -d '{"content":"hello @echo"}'`);
    say("Poll as helper (long-poll 25 s):");
    say(`  curl -s '${url}${CAP_BASE_PATH}/events?waitSeconds=25' -H 'authorization: Bearer ${seed.helperToken}'`);
    say("");
    await app.kernel.messages.postAsHuman(seed.who, seed.podId, {
        content: "@echo welcome to the demo pod!",
    });
    await closeOnSignals(async () => {
        await driver.stop();
        await app.close();
        await app.kernel.close();
    });
}
//# sourceMappingURL=demo.js.map