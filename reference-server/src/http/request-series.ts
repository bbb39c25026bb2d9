/**
 * HTTP requests by method, route template and status: a counter (cap_http_requests_total) and a latency
 * histogram (cap_http_request_duration_seconds), kept as plain numbers and written in the Prometheus text
 * format at scrape time, as prom-client wrote them before. prom-client's labelled Counter and Histogram
 * hash a labels object on every inc and observe, against a few additions here. Must never lose a count
 * between scrapes, and must escape label values as the format requires.
 */

/** Upper bounds of the latency buckets, in seconds (+Inf is implied). */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const COUNTER = "cap_http_requests_total";
const HISTOGRAM = "cap_http_request_duration_seconds";

interface Series {
  /** `method="…",route="…",status="…"`, rendered once. */
  labels: string;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last slot is for those above every bound. */
  buckets: number[];
}

/** A label value as the text format writes it: backslash, double quote and newline escaped. */
export function labelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

export function createRequestSeries() {
  const all = new Map<string, Series>();

  const seriesOf = (method: string, route: string, status: number): Series => {
    const key = `${method} ${status} ${route}`;
    let s = all.get(key);
    if (!s) {
      s = {
        labels: `method="${labelValue(method)}",route="${labelValue(route)}",status="${status}"`,
        count: 0,
        sum: 0,
        buckets: new Array(LATENCY_BUCKETS.length + 1).fill(0),
      };
      all.set(key, s);
    }
    return s;
  };

  const add = (s: Series, seconds: number) => {
    s.count++;
    s.sum += seconds;
    let i = 0;
    while (i < LATENCY_BUCKETS.length && seconds > (LATENCY_BUCKETS[i] as number)) i++;
    s.buckets[i] = (s.buckets[i] as number) + 1;
  };

  return {
    /** Counts one answer. */
    observe(method: string, route: string, status: number, seconds: number): void {
      add(seriesOf(method, route, status), seconds);
    },

    /**
     * A recorder for the answers of one route: it keeps the series it used last, so a route answering
     * the same method and status again finds it without building a key.
     */
    recorder(route: string): (method: string, status: number, seconds: number) => void {
      let last: { method: string; status: number; series: Series } | null = null;
      return (method, status, seconds) => {
        if (last === null || last.status !== status || last.method !== method)
          last = { method, status, series: seriesOf(method, route, status) };
        add(last.series, seconds);
      };
    },

    /** Both metrics in the Prometheus text format (version 0.0.4), HELP and TYPE lines included. */
    text(): string {
      const lines = [`# HELP ${COUNTER} HTTP requests`, `# TYPE ${COUNTER} counter`];
      for (const s of all.values()) lines.push(`${COUNTER}{${s.labels}} ${s.count}`);
      lines.push(`# HELP ${HISTOGRAM} HTTP request latency`, `# TYPE ${HISTOGRAM} histogram`);
      for (const s of all.values()) {
        let cumulative = 0;
        LATENCY_BUCKETS.forEach((le, i) => {
          cumulative += s.buckets[i] as number;
          lines.push(`${HISTOGRAM}_bucket{le="${le}",${s.labels}} ${cumulative}`);
        });
        lines.push(`${HISTOGRAM}_bucket{le="+Inf",${s.labels}} ${s.count}`);
        lines.push(`${HISTOGRAM}_sum{${s.labels}} ${s.sum}`);
        lines.push(`${HISTOGRAM}_count{${s.labels}} ${s.count}`);
      }
      return `${lines.join("\n")}\n`;
    },
  };
}

export type RequestSeries = ReturnType<typeof createRequestSeries>;
