/**
 * A driver that hangs up while its long-poll waits: the poll stops waiting at once and claims nothing for
 * the closed connection, so an event that arrives afterwards goes, unleased and on its first attempt, to
 * the driver's next poll. Real sockets: inject() cannot hang up.
 */
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { CAP_BASE_PATH } from "@commonly/cap-spec/constants";
import { afterEach, expect, it } from "vitest";
import { eventually, makeWorld, type World } from "../helpers/world.js";

let w: World;
afterEach(async () => {
  await w.app.close();
  await w.store.close();
});

it("stops waiting when the client hangs up, and claims nothing for it", async () => {
  // The backstop is a minute away, so only the hang-up can end the wait inside the test.
  w = await makeWorld({ config: { longPollBackstopMs: 60_000 } });
  await w.app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = w.app.server.address() as AddressInfo;
  const poll = request({
    host: "127.0.0.1",
    port,
    path: `${CAP_BASE_PATH}/events?waitSeconds=25`,
    headers: { authorization: `Bearer ${w.alpha.token}` },
    agent: false,
  });
  poll.on("error", () => {}); // the hang-up below
  poll.end();
  await eventually(
    async () => w.kernel.hub.waiterCount(),
    (n) => n === 1,
  );

  poll.destroy();
  await eventually(
    async () => w.kernel.hub.waiterCount(),
    (n) => n === 0,
  );

  const { id } = await w.kernel.operator.emitDirect({
    agentName: "alpha",
    podId: w.podA.id,
    type: "task.assigned",
    payload: {},
  });
  const { events } = (await w.cap(w.alpha.token, "GET", "/events")).json();
  expect(events.map((e: { id: string; attempts: number }) => [e.id, e.attempts])).toEqual([[id, 1]]);
});
