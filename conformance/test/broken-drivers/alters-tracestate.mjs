// Broken: puts a member of its own in front of the event's tracestate (CAP-TRACE-10).
import { correct, runDriver } from "./driver.mjs";

await runDriver({
  trace: (event, span, kind) => {
    const h = correct.trace(event, span, kind);
    return h.tracestate ? { ...h, tracestate: `drv=1,${h.tracestate}` } : h;
  },
});
