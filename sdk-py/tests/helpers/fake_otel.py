"""Puts the stand-in `opentelemetry` (tests/fake_otel, see its README) on `sys.path` for one test class
and takes it off again, so every other test runs without OpenTelemetry; the bridge's one import attempt
is forgotten both times."""
from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from cap_sdk import _otel_bridge

FAKE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fake_otel")


def _forget() -> None:
    for name in [n for n in sys.modules if n == "opentelemetry" or n.startswith("opentelemetry.")]:
        del sys.modules[name]
    _otel_bridge.reset()


def install() -> Any:
    """The stand-in's `opentelemetry.trace`, importable from now on."""
    _forget()
    sys.path.insert(0, FAKE)
    importlib.invalidate_caches()
    trace = importlib.import_module("opentelemetry.trace")
    trace.reset()
    return trace


def uninstall() -> None:
    """Back to how the tests found it: no stand-in on `sys.path`, nothing imported, nothing blocked."""
    while FAKE in sys.path:
        sys.path.remove(FAKE)
    _forget()


def block() -> None:
    """Make `opentelemetry` unimportable (even where a real one is installed) until `uninstall()`."""
    _forget()
    sys.modules["opentelemetry"] = None  # type: ignore[assignment]  # an import of it raises ImportError
