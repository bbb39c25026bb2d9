/**
 * Exponential backoff for the driver loop, as a pure counter: after each consecutive failure the
 * delay doubles from a base (the poll interval) up to a ceiling (15 minutes), plus the agent's
 * stable 0–20 % offset, so many drivers started together do not retry in step. Used twice: for
 * polls that fail, and for batches whose settling failed (acks refused or answered with something
 * the driver cannot act on, an acked event delivered again). It owns no timer and reads no clock,
 * so tests drive it with tables; it must never return less than a `Retry-After` it was given.
 */
import { CIRCUIT_CEILING_MS } from "./circuit.js";

export class Backoff {
  #failures = 0;

  /** `baseMs`: the first delay; `jitter`: the agent's stable fraction in [0, 0.2). */
  constructor(
    private readonly baseMs: number,
    private readonly jitter: number,
    private readonly ceilingMs: number = CIRCUIT_CEILING_MS,
  ) {}

  /** Failures in a row, the one just counted included. */
  get failures(): number {
    return this.#failures;
  }

  /** Count one more failure; the delay before the next try, never shorter than `atLeastMs`. */
  next(atLeastMs = 0): number {
    this.#failures++;
    const base = Math.min(this.baseMs * 2 ** (this.#failures - 1), this.ceilingMs);
    return Math.max(Math.round(base * (1 + this.jitter)), atLeastMs);
  }

  /** A success: the next failure starts from the base again. */
  reset(): void {
    this.#failures = 0;
  }
}
