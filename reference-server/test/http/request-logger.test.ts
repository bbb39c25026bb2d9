/**
 * Request loggers made on first use (src/http/request-logger.ts): the lines they write are the eager
 * child's, byte for byte; nothing is made while nothing is written at an enabled level.
 */
import { Writable } from "node:stream";
import type { FastifyBaseLogger } from "fastify";
import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import { lazyRequestLogger } from "../../src/http/request-logger.js";

function capture(level: string) {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk).trim());
      cb();
    },
  });
  return { logger: pino({ level, timestamp: false, base: undefined }, stream), lines };
}

const flush = () => new Promise((r) => setImmediate(r));

describe("lazyRequestLogger", () => {
  it("writes exactly the lines the eager child writes, at every level", async () => {
    const eager = capture("trace");
    const lazy = capture("trace");
    const write = (log: FastifyBaseLogger) => {
      log.trace("t");
      log.debug({ a: 1 }, "d");
      log.info("i %s", "x");
      log.warn({ err: "boom" }, "w");
      log.error("e");
      log.fatal("f");
    };
    write(eager.logger.child({ reqId: "req-1" }, {}));
    write(lazyRequestLogger(lazy.logger, { reqId: "req-1" }, {}));
    await flush();
    expect(lazy.lines).toHaveLength(6);
    expect(lazy.lines).toEqual(eager.lines);
    expect(JSON.parse(lazy.lines[3] as string)).toMatchObject({ reqId: "req-1", err: "boom", msg: "w" });
  });

  it("makes no child while only disabled levels are written, and one on the first enabled line", async () => {
    const { logger, lines } = capture("warn");
    const child = vi.spyOn(logger, "child");
    const log = lazyRequestLogger(logger, { reqId: "req-2" }, {});
    log.info("not written");
    log.debug("not written");
    expect(child).not.toHaveBeenCalled();
    log.warn("written");
    log.error("written too");
    expect(child).toHaveBeenCalledTimes(1);
    await flush();
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(["written", "written too"]);
  });

  it("follows the parent's level until it has a child, then the child's", () => {
    const { logger } = capture("warn");
    const log = lazyRequestLogger(logger, { reqId: "req-3" }, {});
    expect(log.level).toBe("warn");
    logger.level = "info";
    expect(log.level).toBe("info");
    log.level = "error";
    expect(log.level).toBe("error");
    expect(logger.level).toBe("info");
  });

  it("gives the eager child to a route with options of its own", () => {
    const { logger } = capture("warn");
    const child = vi.spyOn(logger, "child");
    lazyRequestLogger(logger, { reqId: "req-4" }, { level: "debug" });
    expect(child).toHaveBeenCalledWith({ reqId: "req-4" }, { level: "debug" });
  });

  it("makes grandchildren from the real child, with both bindings", async () => {
    const { logger, lines } = capture("info");
    lazyRequestLogger(logger, { reqId: "req-5" }, {}).child({ part: "x" }).info("hi");
    await flush();
    expect(JSON.parse(lines[0] as string)).toMatchObject({ reqId: "req-5", part: "x", msg: "hi" });
  });
});
