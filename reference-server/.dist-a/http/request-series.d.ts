/**
 * HTTP requests by method, route template and status: a counter (cap_http_requests_total) and a latency
 * histogram (cap_http_request_duration_seconds), kept as plain numbers and written in the Prometheus text
 * format at scrape time, as prom-client wrote them before. prom-client's labelled Counter and Histogram
 * hash a labels object on every inc and observe: 3.9 % of the kernel's CPU on the one-ack drain (perf of
 * `node bench/run.mjs --only drain`), against a few additions here. Must never lose a count between
 * scrapes, and must escape label values as the format requires.
 */
/** Upper bounds of the latency buckets, in seconds (+Inf is implied). */
export declare const LATENCY_BUCKETS: number[];
/** A label value as the text format writes it: backslash, double quote and newline escaped. */
export declare function labelValue(value: string): string;
export declare function createRequestSeries(): {
    /** Counts one answer. */
    observe(method: string, route: string, status: number, seconds: number): void;
    /**
     * A recorder for the answers of one route: it keeps the series it used last, so a route answering
     * the same method and status again finds it without building a key.
     */
    recorder(route: string): (method: string, status: number, seconds: number) => void;
    /** Both metrics in the Prometheus text format (version 0.0.4), HELP and TYPE lines included. */
    text(): string;
};
export type RequestSeries = ReturnType<typeof createRequestSeries>;
