/**
 * The request counter and latency histogram (src/http/request-series.ts): what is observed, as the
 * Prometheus text format writes it — cumulative buckets, +Inf, sum and count, escaped label values.
 */
import { describe, expect, it } from "vitest";
import { createRequestSeries, LATENCY_BUCKETS, labelValue } from "../../src/http/request-series.js";

describe("labelValue", () => {
  it.each([
    ["/api/x", "/api/x"],
    ['a"b', 'a\\"b'],
    ["a\\b", "a\\\\b"],
    ["a\nb", "a\\nb"],
  ])("writes %j as %j", (given, want) => {
    expect(labelValue(given)).toBe(want);
  });
});

describe("the request series", () => {
  it("counts each (method, route, status) apart, with cumulative buckets, +Inf, sum and count", () => {
    const s = createRequestSeries();
    s.observe("POST", "/a", 200, 0.0005); // first bucket
    s.observe("POST", "/a", 200, 0.003); // le=0.005
    s.observe("POST", "/a", 200, 60); // above every bound: only +Inf
    s.observe("POST", "/a", 404, 0.001); // exactly on a bound counts in it
    s.observe("GET", "/a", 200, 0.02);
    const text = s.text();
    const line = (name: string) => {
      const hit = text.split("\n").find((l) => l.startsWith(`${name} `));
      return hit === undefined ? undefined : Number(hit.slice(name.length + 1));
    };
    const a200 = 'method="POST",route="/a",status="200"';
    expect(line(`cap_http_requests_total{${a200}}`)).toBe(3);
    expect(line('cap_http_requests_total{method="POST",route="/a",status="404"}')).toBe(1);
    expect(line('cap_http_requests_total{method="GET",route="/a",status="200"}')).toBe(1);
    expect(line(`cap_http_request_duration_seconds_bucket{le="0.001",${a200}}`)).toBe(1);
    expect(line(`cap_http_request_duration_seconds_bucket{le="0.0025",${a200}}`)).toBe(1);
    expect(line(`cap_http_request_duration_seconds_bucket{le="0.005",${a200}}`)).toBe(2);
    expect(line(`cap_http_request_duration_seconds_bucket{le="30",${a200}}`)).toBe(2);
    expect(line(`cap_http_request_duration_seconds_bucket{le="+Inf",${a200}}`)).toBe(3);
    expect(line(`cap_http_request_duration_seconds_sum{${a200}}`)).toBeCloseTo(60.0035, 9);
    expect(line(`cap_http_request_duration_seconds_count{${a200}}`)).toBe(3);
    expect(
      line('cap_http_request_duration_seconds_bucket{le="0.001",method="POST",route="/a",status="404"}'),
    ).toBe(1);
    // One bucket line per bound plus +Inf, and sum and count, for each of the three series.
    expect(text.split("\n").filter((l) => l.startsWith("cap_http_request_duration_seconds")).length).toBe(
      3 * (LATENCY_BUCKETS.length + 3),
    );
    expect(text).toMatch(
      /^# HELP cap_http_requests_total HTTP requests\n# TYPE cap_http_requests_total counter\n/,
    );
    expect(text).toContain("# TYPE cap_http_request_duration_seconds histogram\n");
    expect(text.endsWith("\n")).toBe(true);
  });

  it("a route's recorder adds to the same series as observe, whatever it answered last", () => {
    const s = createRequestSeries();
    const record = s.recorder("/r");
    record("POST", 200, 0.001);
    record("POST", 401, 0.001);
    record("POST", 200, 0.001);
    s.observe("POST", "/r", 200, 0.001);
    expect(s.text()).toContain('cap_http_requests_total{method="POST",route="/r",status="200"} 3\n');
    expect(s.text()).toContain('cap_http_requests_total{method="POST",route="/r",status="401"} 1\n');
  });

  it("writes only the HELP and TYPE lines before anything is observed", () => {
    expect(createRequestSeries().text().split("\n").filter(Boolean)).toHaveLength(4);
  });
});
