// Broken: sends its own span id on every request but the ack, which carries the event's traceparent as it is (CAP-TRACE-11).
import { correct, runDriver } from "./driver.mjs";

await runDriver({
  trace: (event, span, kind) =>
    kind === "ack"
      ? correct.trace(event, event.traceContext?.traceparent?.split("-")[2], kind)
      : correct.trace(event, span, kind),
});
