/**
 * A connection's token is hashed once (routes/cap.ts), yet every request of the connection is still
 * authenticated on its own: another token on the same keep-alive connection is that token's agent, a
 * malformed or missing one is refused, and a revocation refuses the next request. Real sockets: one
 * undici Client, one connection, so every request below travels on the same socket.
 */
import type { AddressInfo } from "node:net";
import { CAP_BASE_PATH } from "@commonly/cap-spec/constants";
import { Client } from "undici";
import { afterEach, expect, it } from "vitest";
import { makeWorld, type World } from "../helpers/world.js";

let w: World;
let client: Client;
afterEach(async () => {
  await client.close();
  await w.app.close();
  await w.store.close();
});

it("authenticates each request of one connection by its own token, revocation included", async () => {
  w = await makeWorld();
  await w.app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = w.app.server.address() as AddressInfo;
  client = new Client(`http://127.0.0.1:${port}`, { pipelining: 1 });
  const sockets = new Set<unknown>();
  client.on("connect", (_origin, targets) => sockets.add(targets));
  const call = async (method: "GET" | "PUT", authorization?: string, body?: unknown) => {
    const r = await client.request({
      method,
      path: `${CAP_BASE_PATH}/memory`,
      headers: {
        ...(authorization === undefined ? {} : { authorization }),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: r.statusCode, body: (await r.body.json()) as Record<string, unknown> };
  };
  /** Whose memory the request reads: the identity its token stands for. */
  const whose = async (authorization?: string) => {
    const r = await call("GET", authorization);
    return r.status === 200 ? r.body.content : r.body.code;
  };
  const alpha = `Bearer ${w.alpha.token}`;
  const beta = `Bearer ${w.beta.token}`;
  expect((await call("PUT", alpha, { content: "alpha's" })).status).toBe(200);
  expect((await call("PUT", beta, { content: "beta's" })).status).toBe(200);

  expect(await whose(alpha)).toBe("alpha's");
  expect(await whose(alpha)).toBe("alpha's");
  expect(await whose(beta)).toBe("beta's");
  expect(await whose(alpha)).toBe("alpha's");
  expect(await whose(`${alpha}x`)).toBe("token_malformed");
  expect(await whose()).toBe("auth_required");
  expect(await whose(alpha)).toBe("alpha's");
  const revoked = await w.adminApi(
    "DELETE",
    `/registry/pods/${w.podA.id}/agents/alpha/runtime-tokens/${w.alpha.tokenId}`,
  );
  expect(revoked.statusCode).toBeLessThan(300);
  expect(await whose(alpha)).toBe("token_revoked");
  expect(await whose(beta)).toBe("beta's");
  expect(sockets.size).toBe(1); // all of it on one connection
});
