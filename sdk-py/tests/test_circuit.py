"""The ADR-005 retry circuit and the failure classifier, as tables (the TypeScript SDK's cases, so both
SDKs wait the same after the same failures)."""
from __future__ import annotations

import unittest

from cap_sdk import CapHttpError, RetryCircuit, classify_failure
from cap_sdk._fingerprint import stable_jitter

MIN = 60.0

# (name, failure classes, delays in seconds with interval 5 s and no jitter, open flags)
STREAKS = [
    ("runtime: interval, twice it, then a one-minute circuit doubling to 15 minutes", ["runtime"] * 8,
     [5, 10, MIN, 2 * MIN, 4 * MIN, 8 * MIN, 15 * MIN, 15 * MIN], [False, False, True, True, True, True, True, True]),
    ("quota: 15 minutes at once", ["quota", "quota"], [15 * MIN, 15 * MIN], [True, True]),
    ("configuration: 15 minutes at once", ["configuration"], [15 * MIN], [True]),
    ("rate limit: one minute doubling to 15 minutes", ["rate_limit"] * 6,
     [MIN, 2 * MIN, 4 * MIN, 8 * MIN, 15 * MIN, 15 * MIN], [True] * 6),
    ("a rate limit after a runtime failure opens at one minute", ["runtime", "rate_limit", "runtime"], [5, MIN, 2 * MIN], [False, True, True]),
    ("a runtime probe after quota stays at the ceiling", ["quota", "runtime"], [15 * MIN, 15 * MIN], [True, True]),
]


class Err(Exception):
    def __init__(self, message: str = "x", **attrs: object) -> None:
        super().__init__(message)
        for k, v in attrs.items():
            setattr(self, k, v)


# (name, what a handler raised, want)
CLASSES = [
    ("an AdapterError of kind quota", Err(kind="quota"), "quota"),
    ("an AdapterError of kind timeout", Err(kind="timeout"), "runtime"),
    ("an AdapterError of kind not_found", Err(kind="not_found"), "configuration"),
    ("an error with class rate_limit", Err(**{"class": "rate_limit"}), "rate_limit"),
    ("an unknown kind, classified by message", Err("429 Too Many Requests", kind="?"), "rate_limit"),
    ("a CapHttpError 429", CapHttpError(429, "POST /x"), "rate_limit"),
    ("a CapHttpError 403", CapHttpError(403, "POST /x", code="not_installed"), "configuration"),
    ("insufficient_quota", Exception("Error: 429 insufficient_quota"), "quota"),
    ("a credit balance message", Exception("Your credit balance is too low"), "quota"),
    ("not logged in", Exception("claude: Not logged in · Please run /login"), "configuration"),
    ("an invalid API key", Exception("Invalid API key provided"), "configuration"),
    ("a missing binary", FileNotFoundError("[Errno 2] No such file or directory: 'codex' ENOENT"), "configuration"),
    ("rate limited", Exception("rate_limit_error: slow down"), "rate_limit"),
    ("overloaded", Exception("API Error: 529 overloaded_error"), "rate_limit"),
    ("an empty-stderr nonzero exit", Exception("claude exited 1"), "runtime"),
    ("a plain RuntimeError", RuntimeError("boom"), "runtime"),
    ("None", None, "runtime"),
]


class Circuit(unittest.TestCase):
    def test_delays_each_streak_as_adr_005_says(self) -> None:
        for name, classes, delays, opened in STREAKS:
            with self.subTest(name):
                circuit = RetryCircuit(5.0, 0.0)
                decisions = [circuit.failure(c) for c in classes]
                self.assertEqual([d.delay for d in decisions], delays)
                self.assertEqual([d.open for d in decisions], opened)
                self.assertEqual([d.consecutive for d in decisions], list(range(1, len(classes) + 1)))

    def test_starts_over_after_a_completed_turn(self) -> None:
        circuit = RetryCircuit(5.0, 0.0)
        for _ in range(4):
            circuit.failure("runtime")
        circuit.reset()
        d = circuit.failure("runtime")
        self.assertEqual((d.delay, d.consecutive, d.open), (5.0, 1, False))

    def test_adds_the_agents_stable_offset_at_most_20_percent(self) -> None:
        jitter = stable_jitter("my-claude@laptop")
        self.assertEqual(jitter, stable_jitter("my-claude@laptop"))
        self.assertTrue(0 <= jitter < 0.2)
        self.assertEqual(RetryCircuit(5.0, jitter).failure("quota").delay, round(15 * MIN * 1000 * (1 + jitter)) / 1000)

    def test_uses_the_typescript_sdks_offsets_bit_for_bit(self) -> None:
        # Values printed by sdk-ts/src/internal/time.ts stableJitter for the same keys.
        self.assertEqual(stable_jitter("agent-1"), 0.09997171880677343)
        self.assertEqual(stable_jitter("agent-2"), 0.0787862241268158)
        self.assertEqual(stable_jitter("é€😀x"), 0.18351504588499667)

    def test_spreads_a_fleet(self) -> None:
        offsets = {f"{stable_jitter(f'agent-{i}'):.4f}" for i in range(50)}
        self.assertGreater(len(offsets), 45)


class Classifier(unittest.TestCase):
    def test_classifies_each_failure(self) -> None:
        for name, error, want in CLASSES:
            with self.subTest(name):
                self.assertEqual(classify_failure(error), want)


if __name__ == "__main__":
    unittest.main()
