/**
 * The operator at the console: the kernel CLI (provision, emit, tokens, demo) acting on the database. It
 * passes the services' checks as a kernel admin acting as `user`, who is recorded as installer or issuer —
 * so provisioning goes through the same rules as the admin routes instead of around them.
 */
export function operatorCaller(user) {
    return { kind: "human", userId: user.id, name: user.name, isAdmin: true, tokenId: "operator" };
}
//# sourceMappingURL=deps.js.map