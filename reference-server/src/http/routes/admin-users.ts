/**
 * Admin routes for users: me, list, create (with a first API token, shown once), delete (revoking tokens).
 */

import type { FastifyInstance } from "fastify";
import { wireUser } from "../../services/users.js";
import { userOf } from "../callers.js";
import { checks } from "../request-checks.js";
import type { AdminRoute } from "../route-types.js";
import type { RouteDeps } from "../types.js";

export async function adminUserRoutes(app: FastifyInstance, { kernel, validators }: RouteDeps) {
  app.get("/users/me", async (req) => wireUser(await kernel.users.me(userOf(req))));

  app.get("/users", async (req) => ({ users: (await kernel.users.list(userOf(req))).map(wireUser) }));

  app.post<AdminRoute<"/users", "post">>(
    "/users",
    { preValidation: checks({ body: validators.adminModel("CreateUserRequest") }) },
    async (req, reply) => {
      const { user, token } = await kernel.users.create(userOf(req), req.body);
      return reply.code(201).send({ user: wireUser(user), token });
    },
  );

  app.delete<AdminRoute<"/users/{userId}", "delete">>("/users/:userId", async (req) => ({
    ok: true,
    ...(await kernel.users.remove(userOf(req), req.params.userId)),
  }));
}
