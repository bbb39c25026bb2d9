"""The retry circuit that paces a driver after handler failures, as a pure state machine:
given the class of each consecutive handler failure it says how long to wait before the next attempt.
It owns no timers and reads no clock, so tests drive it with tables. Mirrors sdk-ts/src/internal/driver/circuit.ts.

- quota / configuration: a 15-minute circuit at once;
- rate_limit: a circuit at 60 s, doubling on every failed probe up to 15 minutes;
- runtime: the poll interval, then twice it, then from the third consecutive failure a circuit at
  60 s doubling up to 15 minutes;
- every delay gets the agent's stable 0–20 % offset (so at most 18 minutes);
- only a completed handler turn resets it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

CIRCUIT_START = 60.0
CIRCUIT_CEILING = 15 * 60.0

_RULES = [
    (
        "quota",
        re.compile(
            r"insufficient_quota|\bquota\b|credit balance|out of credits|usage limit|billing|payment required|\b402\b",
            re.I,
        ),
    ),
    (
        "configuration",
        re.compile(
            r"not logged in|log ?in required|please (?:run /?)?log ?in|invalid[ _-]?api[ _-]?key|missing api key"
            r"|unauthori[sz]ed|authentication|forbidden|\b40[13]\b|command not found|ENOENT",
            re.I,
        ),
    ),
    ("rate_limit", re.compile(r"rate[ _-]?limit|\b429\b|too many requests|overloaded|\b529\b", re.I)),
]

_KIND_ALIASES = {
    "quota": "quota",
    "configuration": "configuration",
    "config": "configuration",
    "not_found": "configuration",
    "rate_limit": "rate_limit",
    "ratelimit": "rate_limit",
    "runtime": "runtime",
    "timeout": "runtime",
}

#: The failure classes the retry circuit tells apart.
FAILURE_CLASSES = ("quota", "configuration", "rate_limit", "runtime")


def classify_failure(error: object) -> str:
    """The class of a handler's failure: its `kind`, `class` or `failure_class` attribute when it has one, a CAP
    status (429, 401/403) when it has a `status` (a `CapHttpError` does), else what its message says; `runtime` by default."""
    for attr in ("kind", "class", "failure_class"):
        value = getattr(error, attr, None)
        if isinstance(value, str) and value.lower() in _KIND_ALIASES:
            return _KIND_ALIASES[value.lower()]
    status = getattr(error, "status", None)
    if status == 429:
        return "rate_limit"
    if status in (401, 403):
        return "configuration"
    text = str(error)
    for kind, pattern in _RULES:
        if pattern.search(text):
            return kind
    return "runtime"


@dataclass(frozen=True)
class CircuitDecision:
    """What the circuit decided after a failure; `delay` in seconds, jitter included."""

    failure_class: str
    #: Consecutive failures, this one included.
    consecutive: int
    #: Whether the circuit is open (the long-delay regime) after this failure.
    open: bool
    delay: float


class RetryCircuit:
    """`interval`: the poll interval (seconds) the runtime class starts from; `jitter`: the stable fraction in [0, 0.2)."""

    def __init__(self, interval: float, jitter: float) -> None:
        self.interval = interval
        self.jitter = jitter
        self.consecutive = 0
        self._base = 0.0
        self._open = False

    def failure(self, failure_class: str) -> CircuitDecision:
        self.consecutive += 1
        if failure_class in ("quota", "configuration"):
            self._open = True
            self._base = CIRCUIT_CEILING
        elif self._open:
            self._base = min(self._base * 2, CIRCUIT_CEILING)
        elif failure_class == "rate_limit" or self.consecutive >= 3:
            self._open = True
            self._base = CIRCUIT_START
        else:
            self._base = self.interval * self.consecutive
        # Milliseconds rounded as the TypeScript SDK does, so both SDKs wait the same.
        delay = round(self._base * 1000 * (1 + self.jitter)) / 1000
        return CircuitDecision(failure_class, self.consecutive, self._open, delay)

    def reset(self) -> None:
        """A completed handler turn: close the circuit and forget the streak."""
        self.consecutive = 0
        self._base = 0.0
        self._open = False
