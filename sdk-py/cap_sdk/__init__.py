"""cap_sdk: a typed CAP v1 client (`CapClient`) and driver runtime (`run_driver`) for the Commonly
Agent Protocol, on the Python standard library only. The protocol is docs/CAP.md; the API reference
is sdk-py/docs/api.md (generated from these docstrings)."""
from ._generated import features, models
from ._generated.errors import ERRORS, ErrorSpec
from ._generated.features import FEATURES
from ._generated.requirements import REQUIREMENTS, Requirement
from ._transport import RetryPolicy
from ._turn import HandlerContext, reply_key
from ._version import __version__
from .circuit import CircuitDecision, RetryCircuit, classify_failure
from .client import USER_AGENT, CapClient
from .driver import DriverSummary, run_driver
from .errors import SDK_ERROR_CODES, Cancelled, CapError, CapHttpError, CapSdkError
from .stop import StopSignal
from .stores import HandledStore, JsonFileHandledStore, MemoryHandledStore

__all__ = [
    "Cancelled",
    "CapClient",
    "CapError",
    "CapHttpError",
    "CapSdkError",
    "CircuitDecision",
    "DriverSummary",
    "ERRORS",
    "ErrorSpec",
    "FEATURES",
    "HandledStore",
    "HandlerContext",
    "JsonFileHandledStore",
    "MemoryHandledStore",
    "REQUIREMENTS",
    "Requirement",
    "RetryCircuit",
    "RetryPolicy",
    "SDK_ERROR_CODES",
    "StopSignal",
    "USER_AGENT",
    "__version__",
    "classify_failure",
    "features",
    "models",
    "reply_key",
    "run_driver",
]
