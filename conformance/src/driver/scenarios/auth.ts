/**
 * A revoked token: the driver handles one event, and the token is revoked between the kernel accepting
 * its ack and the driver seeing the answer, so its next poll meets `401 token_revoked`. It stops polling
 * within three consecutive 401s (CAP-DRV-10, a MUST) and tells its operator on stderr (CAP-DRV-6).
 * "Stopped" is an exit (under --command), or no poll for a quiet window of at least ten seconds and twice its
 * longest gap between refused polls; a fourth refused poll fails at once.
 */
import { defineDriverCheck } from "../check.js";
import type { DriverContext } from "../context.js";
import type { ProxyScript, WireExchange } from "../fault-proxy.js";
import { ackResults } from "./support.js";

interface Revoked {
  refused: WireExchange[];
  stopped: boolean;
  revokedAt: number;
}

async function revokedScenario(ctx: DriverContext): Promise<Revoked> {
  let revokedAt = 0;
  let target: string | undefined;
  const revoke = async () => {
    if (revokedAt) return;
    revokedAt = Date.now();
    await ctx.world.revoke(ctx.agent);
  };
  const script: ProxyScript = {
    async after(req, answer) {
      if (
        target &&
        answer.status === 200 &&
        ackResults({ kind: req.kind, eventId: req.eventId, requestJson: req.json }, target).length > 0
      )
        await revoke();
      return undefined;
    },
  };
  await ctx.begin({ script });
  const { event } = await ctx.say(ctx.pod(), `last words before the revocation ${ctx.nonce()}`);
  target = event.id;
  if (!(await ctx.acked(event.id, ctx.handleMs))) {
    ctx.note(`the driver did not ack ${event.id}; the token is revoked anyway`);
    await revoke();
  }
  const refused = () => ctx.wire("poll").filter((x) => x.at >= revokedAt && x.status === 401);
  const limit = Date.now() + ctx.ms(40_000);
  let lastCount = -1;
  let quietSince = Date.now();
  for (;;) {
    const r = refused();
    if (r.length > 3) break;
    if (ctx.driver && !ctx.driver.running) return { refused: r, stopped: true, revokedAt };
    if (r.length !== lastCount) {
      lastCount = r.length;
      quietSince = Date.now();
    }
    let longestGap = 0;
    for (let i = 1; i < r.length; i++)
      longestGap = Math.max(longestGap, (r[i] as WireExchange).at - (r[i - 1] as WireExchange).at);
    // Without a process to watch (--wait), a driver has stopped when it stays quiet well past its backoff.
    const quiet = ctx.ms(Math.max(10_000, 2 * longestGap));
    if (!ctx.driver && r.length > 0 && Date.now() - quietSince >= quiet)
      return { refused: r, stopped: true, revokedAt };
    if (Date.now() >= limit) return { refused: r, stopped: Date.now() - quietSince >= quiet, revokedAt };
    await new Promise((ok) => setTimeout(ok, 20));
  }
  return { refused: refused(), stopped: false, revokedAt };
}

export const authChecks = [
  defineDriverCheck({
    id: "driver.auth.revoked-stops",
    family: "auth",
    title: "a token revoked mid-run: the driver stops polling within three consecutive 401s",
    verifies: ["CAP-DRV-10"],
    revokes: true,
    async run(ctx) {
      const r = await revokedScenario(ctx);
      ctx.expect("CAP-DRV-10", r.stopped && r.refused.length <= 3, {
        message: `after its token was revoked the driver kept polling: ${r.refused.length} polls answered 401${r.stopped ? "" : " and it had not stopped"}`,
        expected: "at most three polls answered 401, then no more",
        actual: `${r.refused.length} refused polls${ctx.processNote()}`,
        wire: r.refused,
      });
      if (r.refused.length === 0 && ctx.driver && !ctx.driver.running)
        ctx.note(`the driver exited (${ctx.driver.describeExit()}) before its first refused poll`);
    },
  }),
  defineDriverCheck({
    id: "driver.auth.revoked-tells",
    family: "auth",
    title: "a token revoked mid-run: the driver stops and says so on stderr",
    verifies: ["CAP-DRV-6"],
    revokes: true,
    needsProcess: true,
    async run(ctx) {
      const r = await revokedScenario(ctx);
      if (ctx.driver?.running) await ctx.driver.stop(ctx.ms(3000));
      const stderr = ctx.driver?.stderr ?? "";
      ctx.expect(
        "CAP-DRV-6",
        r.stopped && /revok|401|token|unauthori[sz]ed|refused|re-?attach/i.test(stderr),
        {
          message: r.stopped
            ? "the driver stopped after its token was revoked but said nothing about it on stderr"
            : "the driver did not stop polling after its token was revoked",
          expected: "a line on stderr naming the refused or revoked token",
          actual: stderr ? `stderr: ${ctx.driver?.tail("stderr", 400)}` : "stderr empty",
          wire: r.refused,
        },
      );
    },
  }),
];
