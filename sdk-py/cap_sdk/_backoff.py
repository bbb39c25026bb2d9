"""Exponential backoff for the driver loop, as a pure counter: after each consecutive failure the delay
doubles from a base (the poll interval) up to a ceiling (15 minutes), plus the agent's stable 0–20 %
offset, so many drivers started together do not retry in step. Used twice: for polls that fail, and for
batches whose settling failed (acks refused or answered with something the driver cannot act on, an
acked event delivered again). It owns no timer and reads no clock; it must never return less than a
`Retry-After` it was given. Mirrors sdk-ts/src/internal/driver/backoff.ts.
"""
from __future__ import annotations

from .circuit import CIRCUIT_CEILING


class Backoff:
    def __init__(self, base: float, jitter: float, ceiling: float = CIRCUIT_CEILING) -> None:
        self.base = base
        self.jitter = jitter
        self.ceiling = ceiling
        #: Failures in a row, the one just counted included.
        self.failures = 0

    def next(self, at_least: float = 0.0) -> float:
        """Count one more failure; the delay in seconds before the next try, never shorter than `at_least`."""
        self.failures += 1
        base = min(self.base * 2 ** (self.failures - 1), self.ceiling)
        return max(round(base * 1000 * (1 + self.jitter)) / 1000, at_least)

    def reset(self) -> None:
        """A success: the next failure starts from the base again."""
        self.failures = 0
