"""Where a driver remembers the events it has handled, so a redelivery (the ack was lost, the lease ran
out just before the ack) is re-acked without running the handler again. The store keeps the ack result
too, so the re-ack says what the first one said. Stores are bounded: they forget the oldest ids first;
the window only has to outlive the kernel's redelivery horizon. Both are safe to share between threads.
"""
from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Protocol, Tuple


class HandledStore(Protocol):
    """A bounded memory of handled event ids and how each was acked."""

    def get(self, event_id: str) -> Optional[Dict[str, Any]]:
        """The ack result recorded for `event_id`, or None when it was not handled."""

    def set(self, event_id: str, result: Dict[str, Any]) -> None:
        """Record that `event_id` was handled; called before the ack is sent."""


class MemoryHandledStore:
    """An in-memory store of the `capacity` most recently handled ids (default 1000)."""

    def __init__(self, capacity: int = 1000) -> None:
        self.capacity = max(1, capacity)
        self._entries: "OrderedDict[str, Dict[str, Any]]" = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, event_id: str) -> Optional[Dict[str, Any]]:
        with self._lock:
            result = self._entries.get(event_id)
            if result is not None:
                # Refresh recency: a redelivered id is the one most likely to come back again.
                self._entries.move_to_end(event_id)
            return result

    def set(self, event_id: str, result: Dict[str, Any]) -> None:
        with self._lock:
            self._entries[event_id] = result
            self._entries.move_to_end(event_id)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)

    def entries(self) -> List[Tuple[str, Dict[str, Any]]]:
        """Ids from least to most recently handled, with their results (for persistence)."""
        with self._lock:
            return list(self._entries.items())


class JsonFileHandledStore:
    """A bounded store persisted as one JSON file, written atomically (temp file + rename, mode 0600) on
    every `set`, so a restarted driver still re-acks what it handled before the restart. The file has the
    TypeScript SDK's shape (`{"version": 1, "handled": [[id, result], …]}`), so either SDK can read it.
    A missing or corrupt file starts empty; it never raises on load."""

    def __init__(self, path: str, capacity: int = 1000) -> None:
        self.path = path
        self._memory = MemoryHandledStore(capacity)
        self._lock = threading.Lock()
        for event_id, result in self._load():
            self._memory.set(event_id, result)

    def __len__(self) -> int:
        return len(self._memory)

    def get(self, event_id: str) -> Optional[Dict[str, Any]]:
        return self._memory.get(event_id)

    def set(self, event_id: str, result: Dict[str, Any]) -> None:
        with self._lock:
            self._memory.set(event_id, result)
            body = {"version": 1, "handled": [[i, r] for i, r in self._memory.entries()]}
            folder = os.path.dirname(os.path.abspath(self.path))
            os.makedirs(folder, exist_ok=True)
            temp = f"{self.path}.{os.getpid()}.{threading.get_ident()}.tmp"
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(json.dumps(body, separators=(",", ":")) + "\n")
            os.replace(temp, self.path)

    def _load(self) -> List[Tuple[str, Dict[str, Any]]]:
        try:
            with open(self.path, encoding="utf-8") as f:
                parsed = json.load(f)
        except (OSError, ValueError):
            return []
        handled = parsed.get("handled") if isinstance(parsed, dict) else None
        if not isinstance(handled, list):
            return []
        return [
            (e[0], e[1])
            for e in handled
            if isinstance(e, list)
            and len(e) == 2
            and isinstance(e[0], str)
            and isinstance(e[1], dict)
            and isinstance(e[1].get("outcome"), str)
        ]
