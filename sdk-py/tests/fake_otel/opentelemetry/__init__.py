"""A stand-in for the `opentelemetry-api` package (see ../README.md): just what cap_sdk's bridge calls."""
