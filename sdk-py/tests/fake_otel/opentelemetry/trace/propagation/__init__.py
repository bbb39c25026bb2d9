"""The stand-in's `opentelemetry.trace.propagation` package (the propagator is in `tracecontext`)."""
