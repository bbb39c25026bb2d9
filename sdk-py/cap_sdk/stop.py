"""`StopSignal`: a `threading.Event` that also interrupts what is waiting on it; and the two ways a
driver gets stopped from outside: a user's Event (`follow`) and SIGINT/SIGTERM (`on_stop_signals`).

Setting it wakes every `wait()` (as any Event does) and runs the callbacks registered with
`on_set`, which the transport uses to shut the socket of an in-flight request (a 20-second
long-poll ends at once on Ctrl-C instead of at the end of its wait). It never raises from `set()`.
"""
from __future__ import annotations

import signal
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


def follow(source: threading.Event, target: StopSignal) -> None:
    """Set `target` when `source` is set. A plain Event cannot call back, so a thread looks at it every
    0.1 s until it is set or `target` is set some other way."""
    if isinstance(source, StopSignal):
        source.on_set(lambda: target.set(source.reason))
        return

    def watch() -> None:
        while not target.is_set():
            if source.wait(0.1):
                target.set()
                return

    threading.Thread(target=watch, name="cap-stop-follower", daemon=True).start()


def on_stop_signals(stop: StopSignal) -> Callable[[], None]:
    """On the main thread, SIGINT and SIGTERM set `stop` (a second SIGINT raises KeyboardInterrupt);
    returns the function that puts the previous handlers back. Elsewhere it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

    def on_signal(signum, frame):  # noqa: ANN001 - the signal module's API
        if signum == signal.SIGINT and stop.is_set():
            raise KeyboardInterrupt
        # Set from another thread: the signal may have interrupted a holder of the signal's lock.
        threading.Thread(target=stop.set, daemon=True).start()

    for s in previous:
        signal.signal(s, on_signal)

    def restore() -> None:
        for s, handler in previous.items():
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)

    return restore
