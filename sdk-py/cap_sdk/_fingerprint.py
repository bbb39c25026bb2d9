"""FNV-1a and the stable per-agent delay offset (so agents that fail together retry apart), bit for bit
the TypeScript SDK's (internal/time.ts), so a Python and a TypeScript driver of the same agent spread their delays the same way."""
from __future__ import annotations


def fnv1a(text: str) -> int:
    """FNV-1a, 32 bits, over UTF-16 code units (as JavaScript's `charCodeAt`)."""
    h = 0x811C9DC5
    data = text.encode("utf-16-le")
    for i in range(0, len(data), 2):
        h ^= data[i] | (data[i + 1] << 8)
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def stable_jitter(key: str) -> float:
    """A stable fraction in [0, 0.2) for `key` (FNV-1a finished with murmur3's fmix32)."""
    h = fnv1a(key)
    h = ((h ^ (h >> 16)) * 0x85EBCA6B) & 0xFFFFFFFF
    h = ((h ^ (h >> 13)) * 0xC2B2AE35) & 0xFFFFFFFF
    h = (h ^ (h >> 16)) & 0xFFFFFFFF
    return (h / 2**32) * 0.2
