export class HangUp {
    aborted = false;
    #listener = null;
    #res;
    #onClose = () => {
        if (this.#res.writableEnded || this.aborted)
            return;
        this.aborted = true;
        const listener = this.#listener;
        this.#listener = null;
        listener?.();
    };
    constructor(res) {
        this.#res = res;
        res.on("close", this.#onClose);
    }
    addEventListener(_type, listener) {
        this.#listener = listener;
    }
    removeEventListener(_type, listener) {
        if (this.#listener === listener)
            this.#listener = null;
    }
    /** The answer is being written (or the poll failed): stop watching the connection. */
    dispose() {
        this.#listener = null;
        this.#res.off("close", this.#onClose);
    }
}
//# sourceMappingURL=hang-up.js.map