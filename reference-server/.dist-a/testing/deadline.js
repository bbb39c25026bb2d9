export async function eventually(probe, what, { timeoutMs = 20_000, everyMs = 20 } = {}) {
    const deadline = Date.now() + timeoutMs;
    let last;
    for (;;) {
        try {
            const value = await probe();
            if (value)
                return value;
        }
        catch (error) {
            last = error;
        }
        if (Date.now() > deadline) {
            const why = last instanceof Error ? ` (last error: ${last.message})` : "";
            throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}${why}`);
        }
        await new Promise((r) => setTimeout(r, everyMs));
    }
}
//# sourceMappingURL=deadline.js.map