import { wireUser } from "../../services/users.js";
import { checks } from "../request-checks.js";
export async function adminUserRoutes(app, { kernel, validators }) {
    app.get("/users/me", async (req) => wireUser(await kernel.users.me(req.user)));
    app.get("/users", async (req) => ({ users: (await kernel.users.list(req.user)).map(wireUser) }));
    app.post("/users", { preValidation: checks({ body: validators.adminModel("CreateUserRequest") }) }, async (req, reply) => {
        const { user, token } = await kernel.users.create(req.user, req.body);
        return reply.code(201).send({ user: wireUser(user), token });
    });
    app.delete("/users/:userId", async (req) => ({
        ok: true,
        ...(await kernel.users.remove(req.user, req.params.userId)),
    }));
}
//# sourceMappingURL=admin-users.js.map