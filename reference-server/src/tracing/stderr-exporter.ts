/**
 * `OTEL_TRACES_EXPORTER=console`: each finished span as one line on stderr, `cap-kernel: span {json}`.
 * Not the SDK's ConsoleSpanExporter, which writes to stdout: the kernel's stdout carries only its JSON
 * log lines, for a log collector.
 * Must never write to stdout.
 */
import { type ExportResult, ExportResultCode, hrTimeToMicroseconds } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";

export class StderrSpanExporter implements SpanExporter {
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const lines = spans.map((s) => {
      const own = s.spanContext();
      return `cap-kernel: span ${JSON.stringify({
        traceId: own.traceId,
        spanId: own.spanId,
        parentSpanId: s.parentSpanContext?.spanId,
        name: s.name,
        kind: s.kind,
        startUs: hrTimeToMicroseconds(s.startTime),
        durationUs: hrTimeToMicroseconds(s.duration),
        attributes: s.attributes,
        status: s.status,
        links: s.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId })),
      })}\n`;
    });
    process.stderr.write(lines.join(""), () => done({ code: ExportResultCode.SUCCESS }));
  }

  async shutdown(): Promise<void> {}
}
