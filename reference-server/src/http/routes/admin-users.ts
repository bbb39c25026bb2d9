/**
 * Admin routes for users: me, list, create (with a first API token, shown once), delete (revoking tokens).
 */
import type { FastifyInstance } from "fastify";
import { wireUser } from "../../services/users.js";
import { checks } from "../request-checks.js";
import type { AdminRoute } from "../route-types.js";
import type { RouteDeps } from "../types.js";

export async function adminUserRoutes(app: FastifyInstance, { kernel, validators }: RouteDeps) {
  app.get("/users/me", async (req) => {
    const u = await kernel.store.getUser(req.user!.userId);
    return wireUser(u!);
  });

  app.get("/users", async (req) => ({ users: (await kernel.users.list(req.user!)).map(wireUser) }));

  app.post<AdminRoute<"/users", "post">>(
    "/users",
    { preValidation: checks({ body: validators.adminModel("CreateUserRequest") }) },
    async (req, reply) => {
      const { user, token } = await kernel.users.create(req.user!, req.body);
      return reply.code(201).send({ user: wireUser(user), token });
    },
  );

  app.delete<AdminRoute<"/users/{userId}", "delete">>("/users/:userId", async (req) => ({
    ok: true,
    ...(await kernel.users.remove(req.user!, req.params.userId)),
  }));
}
