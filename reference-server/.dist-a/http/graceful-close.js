import { KernelError } from "../errors/registry.js";
export function installGracefulClose(app, release, isClosing, graceMs = 10_000) {
    let inFlight = 0;
    const answered = () => {
        inFlight--;
    };
    // One callback hook for both jobs, not two, and not an async one: it runs on every request.
    app.addHook("onRequest", (_req, reply, done) => {
        if (isClosing()) {
            done(new KernelError("unavailable", "The kernel is shutting down."));
            return;
        }
        inFlight++;
        // `close` fires once per response, finished or aborted, so the count cannot drift. One listener
        // function for every response (`on`, not `once`): `once` wraps a new closure per request.
        reply.raw.on("close", answered);
        done();
    });
    app.addHook("preClose", async () => {
        release();
        const until = Date.now() + graceMs;
        while (inFlight > 0 && Date.now() < until)
            await new Promise((r) => setTimeout(r, 10));
        app.server.closeAllConnections?.();
    });
}
//# sourceMappingURL=graceful-close.js.map