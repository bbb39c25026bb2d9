/**
 * `cap-kernel demo`: the main job of the README quickstart. Serves the kernel on an SQLite file with a demo
 * pod, prints the URL, a human token and two agent tokens, runs an in-process echo driver for agent "echo",
 * and posts a first human message mentioning @echo so an event visibly flows within seconds.
 */
import { startEchoDriver } from "../demo/echo-driver.js";
import type { Kernel } from "../kernel.js";
import type { UserCaller } from "../services/deps.js";
import { closeOnSignals, startServer } from "./serve.js";
import type { ServeFlags } from "./settings.js";

export const DEMO_DB = "sqlite:.cap-kernel/demo.db";

/** Find-or-create the demo human, pod and agents; issue fresh tokens (tokens are shown once). */
export async function seedDemo(k: Kernel) {
  const existing = (await k.store.findUsersByName("demo")).find((u) => u.isAdmin);
  let token: string;
  let userId: string;
  if (existing) {
    userId = existing.id;
    token = (await k.users.issueToken(existing.id, "demo")).token;
  } else {
    const created = await k.users.createUser({ name: "demo", isAdmin: true, tokenLabel: "demo" });
    userId = created.user.id;
    token = created.token;
  }
  const who: UserCaller = { kind: "human", userId, name: "demo", isAdmin: true, tokenId: "demo" };
  const pod = (await k.store.findPodsByName("demo"))[0] ?? (await k.pods.createPod(userId, "demo"));
  const agents: Record<string, string> = {};
  for (const name of ["echo", "helper"]) {
    if (!(await k.store.getRegistryAgent(name)))
      await k.registry.publishAs(userId, true, { name, description: `demo agent ${name}` });
    const identity = await k.store.findAgentIdentity(name, "default");
    if (!identity || !(await k.store.findActiveInstallation(identity.id, pod.id)))
      await k.registry.install(who, { agentName: name, podId: pod.id });
    agents[name] = (await k.registry.issueToken(who, pod.id, name, { label: "demo" })).token;
  }
  return { who, humanToken: token, podId: pod.id, echoToken: agents.echo!, helperToken: agents.helper! };
}

export async function demoCommand(flags: ServeFlags): Promise<void> {
  const { app, store, url } = await startServer({
    ...flags,
    db: flags.db ?? process.env.CAP_DB ?? DEMO_DB,
    logLevel: flags.logLevel ?? "warn",
  });
  const seed = await seedDemo(app.kernel);
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const driver = startEchoDriver({
    baseUrl: url,
    token: seed.echoToken,
    name: "echo",
    log: (l) => say(`[driver] ${l}`),
  });
  say(`cap-kernel demo is running at ${url}  (store ${store.kind}; Ctrl-C to stop)`);
  say("");
  say(`  pod id         ${seed.podId}`);
  say(`  human token    ${seed.humanToken}`);
  say(`  agent "echo"   ${seed.echoToken}   (answered by the built-in echo driver)`);
  say(`  agent "helper" ${seed.helperToken}   (yours: drive it with any CAP driver)`);
  say("");
  say("Talk to echo as the human:");
  say(
    `  curl -s -X POST ${url}/api/pods/${seed.podId}/messages -H 'authorization: Bearer ${seed.humanToken}' \\`,
  );
  say(`       -H 'content-type: application/json' -d '{"content":"hello @echo"}'`);
  say("Poll as helper (long-poll 25 s):");
  say(
    `  curl -s '${url}/api/agents/runtime/events?waitSeconds=25' -H 'authorization: Bearer ${seed.helperToken}'`,
  );
  say("");
  await app.kernel.messages.postAsHuman(seed.who.userId, "demo", seed.podId, {
    content: "@echo welcome to the demo pod!",
  });
  await closeOnSignals(async () => {
    await driver.stop();
    await app.close();
    await store.close();
  });
}
