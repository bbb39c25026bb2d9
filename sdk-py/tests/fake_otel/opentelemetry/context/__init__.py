"""The stand-in's context: an immutable mapping made current with a `contextvars` variable, as the real
API's default runtime context does."""
from __future__ import annotations

import contextvars
from typing import Any, Dict

_CURRENT: "contextvars.ContextVar[Context]" = contextvars.ContextVar("fake_otel_context")


class Context(Dict[str, Any]):
    pass


def get_current() -> Context:
    return _CURRENT.get(Context())


def attach(context: Context) -> Any:
    return _CURRENT.set(context)


def detach(token: Any) -> None:
    _CURRENT.reset(token)


def get_value(key: str, context: Any = None) -> Any:
    return (context if context is not None else get_current()).get(key)


def set_value(key: str, value: Any, context: Any = None) -> Context:
    new = Context(context if context is not None else get_current())
    new[key] = value
    return new
