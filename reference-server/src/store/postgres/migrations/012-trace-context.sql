-- Trace context (feature `trace-context`, CAP-TRACE): the W3C trace context of the request that posted a
-- message or enqueued an event, validated and normalised by the kernel (traceparent version 00, tracestate
-- at most 512 bytes). Null when the request sent none; an event's never changes after it is enqueued.
ALTER TABLE events ADD COLUMN traceparent TEXT;
ALTER TABLE events ADD COLUMN tracestate TEXT;
ALTER TABLE messages ADD COLUMN traceparent TEXT;
ALTER TABLE messages ADD COLUMN tracestate TEXT;
