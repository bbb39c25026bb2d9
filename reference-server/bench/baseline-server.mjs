/**
 * The baseline: a bare Fastify 5 app with one POST route, no logger, no schema, no plugins — the ceiling
 * any Fastify server on this machine can reach. Run in its own process by the bench:
 * `node bench/baseline-server.mjs PORT`. It prints "ready PORT" once listening and exits on SIGTERM.
 * Must never do more work than a hello-world, or the ratios it anchors stop meaning anything.
 */
import Fastify from "fastify";

const port = Number(process.argv[2] ?? 0);
const app = Fastify({ logger: false });
app.post("/hello", async () => ({ hello: "world" }));
await app.listen({ host: "127.0.0.1", port });
process.stdout.write(`ready ${app.server.address().port}\n`);
process.on("SIGTERM", () => app.close().then(() => process.exit(0)));
