"""`StopSignal`: a `threading.Event` that also interrupts what is waiting on it.

Setting it wakes every `wait()` (as any Event does) and runs the callbacks registered with
`on_set`, which the transport uses to shut the socket of an in-flight request (a 20-second
long-poll ends at once on Ctrl-C instead of at the end of its wait). It never raises from `set()`.
"""
from __future__ import annotations

import threading
from typing import Callable, List, Optional


class StopSignal(threading.Event):
    """Pass one to `run_driver(stop=...)` or to a client call (`cancel=...`); `set()` stops it."""

    def __init__(self) -> None:
        super().__init__()
        self._callbacks: List[Callable[[], None]] = []
        self._guard = threading.Lock()
        self.reason: Optional[BaseException] = None

    def set(self, reason: Optional[BaseException] = None) -> None:  # type: ignore[override]
        """Set the signal (once; later calls do nothing), keep `reason`, wake waiters, run the callbacks."""
        with self._guard:
            if self.is_set():
                return
            self.reason = reason
            callbacks, self._callbacks = self._callbacks, []
            super().set()
        for callback in callbacks:
            try:
                callback()
            except Exception:  # a callback must not stop the others
                pass

    def on_set(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run `callback` when the signal is set (at once if it already is); returns a remover."""
        with self._guard:
            if not self.is_set():
                self._callbacks.append(callback)

                def remove() -> None:
                    with self._guard:
                        if callback in self._callbacks:
                            self._callbacks.remove(callback)

                return remove
        callback()
        return lambda: None


def linked(*parents: Optional[threading.Event]) -> StopSignal:
    """A `StopSignal` set when any `StopSignal` parent is set (plain Events cannot notify; they are skipped)."""
    child = StopSignal()
    for parent in parents:
        if isinstance(parent, StopSignal):
            parent.on_set(lambda p=parent: child.set(p.reason))
        elif parent is not None and parent.is_set():
            child.set()
    return child
