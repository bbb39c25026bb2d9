/**
 * A client's hang-up as a long-poll's Cancellation: aborted when the connection closes before the answer
 * was written, so a driver that has gone has nothing claimed for it. One listener on the response and a
 * plain object per poll instead of an AbortController (creating its signal and adding and removing its
 * listener showed on the profile of an idle kernel with thousands of parked polls).
 *
 * Must never: abort after the answer was written, or keep its listener on the response after dispose().
 * Holds one abort listener at a time (a wait adds one and removes it).
 */
import type { ServerResponse } from "node:http";
import type { Cancellation } from "../services/wake-hub.js";

export class HangUp implements Cancellation {
  aborted = false;
  #listener: (() => void) | null = null;
  readonly #res: ServerResponse;
  readonly #onClose = () => {
    if (this.#res.writableEnded || this.aborted) return;
    this.aborted = true;
    const listener = this.#listener;
    this.#listener = null;
    listener?.();
  };

  constructor(res: ServerResponse) {
    this.#res = res;
    res.on("close", this.#onClose);
  }

  addEventListener(_type: "abort", listener: () => void): void {
    this.#listener = listener;
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    if (this.#listener === listener) this.#listener = null;
  }

  /** The answer is being written (or the poll failed): stop watching the connection. */
  dispose(): void {
    this.#listener = null;
    this.#res.off("close", this.#onClose);
  }
}
