export function createTokenTouches(store, flushMs = 1000) {
    let pending = new Map();
    let timer = null;
    let writing = Promise.resolve();
    let closed = false;
    const write = async (batch) => {
        try {
            await store.transaction(async (tx) => {
                for (const [id, at] of batch)
                    await tx.touchRuntimeToken(id, at);
            });
        }
        catch {
            // Kept for the next flush, unless the token was used again since (that time is newer).
            for (const [id, at] of batch)
                if (!pending.has(id))
                    pending.set(id, at);
            schedule();
        }
    };
    const flush = () => {
        if (timer) {
            clearTimeout(timer);
            timer = null;
        }
        // One write at a time, in order: a later batch never lands before an earlier one.
        writing = writing.then(() => {
            if (pending.size === 0)
                return;
            const batch = pending;
            pending = new Map();
            return write(batch);
        });
        return writing;
    };
    function schedule() {
        if (timer || closed)
            return;
        timer = setTimeout(() => void flush(), flushMs);
        timer.unref();
    }
    return {
        touch(id, at) {
            pending.set(id, at);
            if (closed)
                void flush();
            else
                schedule();
        },
        flush,
        async close() {
            closed = true;
            await flush();
        },
    };
}
//# sourceMappingURL=token-touches.js.map