/**
 * Proof that the generator is not the limit: autocannon (npm) against the same Fastify hello-world route,
 * same connections, one request in flight each, right before the undici generator (load.mjs) measures it
 * again. The bench's generator must reach within CALIBRATION_TOLERANCE of autocannon's rate; results.mjs
 * reports the run as invalid otherwise. Autocannon only calibrates: it cannot sequence poll → ack, so it
 * drives no kernel scenario.
 */
import autocannon from "autocannon";
import { cpuSeconds } from "./children.mjs";
import { startBaseline } from "./kernel-process.mjs";
import { closedLoop } from "./load.mjs";
import { BASELINE_BODY, BASELINE_CONNECTIONS, BASELINE_PATH } from "./scenarios/baseline.mjs";
import { round } from "./stats.mjs";

export const CALIBRATION_TOLERANCE = 0.15;

function runAutocannon(url, seconds) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(BASELINE_BODY),
        connections: BASELINE_CONNECTIONS,
        pipelining: 1,
        duration: seconds,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

/** One undici closed-loop window; resolves {rate, serverCpu}. */
async function runUndici(baseUrl, pid, sizes) {
  let cpu0 = 0;
  let t0 = 0;
  let serverCpu = null;
  const r = await closedLoop({
    baseUrl,
    method: "POST",
    path: BASELINE_PATH,
    body: BASELINE_BODY,
    connections: BASELINE_CONNECTIONS,
    warmupMs: sizes.warmupMs,
    durationMs: sizes.baselineMs,
    onWindow: (phase) => {
      if (phase === "start") {
        cpu0 = cpuSeconds(pid);
        t0 = performance.now();
      } else serverCpu = (cpuSeconds(pid) - cpu0) / ((performance.now() - t0) / 1000);
    },
  });
  if (r.errors > 0) throw new Error(`calibration: the baseline answered ${r.errors} errors`);
  return { rate: r.perSecond, serverCpu };
}

async function measureAutocannon(url, pid, sizes) {
  const seconds = Math.max(1, Math.round(sizes.baselineMs / 1000));
  await runAutocannon(url, Math.max(1, Math.round(sizes.warmupMs / 1000)));
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  const ac = await runAutocannon(url, seconds);
  const serverCpu = (cpuSeconds(pid) - cpu0) / ((performance.now() - t0) / 1000);
  if (ac.errors > 0 || ac.non2xx > 0)
    throw new Error(`calibration: autocannon saw ${ac.errors} errors, ${ac.non2xx} non-2xx answers`);
  return { rate: ac.requests.total / (ac.duration || seconds), serverCpu };
}

/**
 * Three alternating rounds of each generator on one baseline server; each generator's best round counts
 * (a shared machine only ever slows a round down, and on this one a round of either generator ranged over
 * a fifth of its rate within a minute, so two rounds each often compared one's good round to the other's
 * bad one). Resolves {autocannon, undici, ratio, ok, rounds}.
 */
export async function calibrate({ sizes, log }) {
  const { handle, baseUrl } = await startBaseline();
  try {
    const url = `${baseUrl}${BASELINE_PATH}`;
    const rounds = [];
    for (let i = 0; i < 3; i++) {
      rounds.push({ generator: "autocannon", ...(await measureAutocannon(url, handle.pid, sizes)) });
      rounds.push({ generator: "undici", ...(await runUndici(baseUrl, handle.pid, sizes)) });
    }
    const best = (g) => Math.max(...rounds.filter((r) => r.generator === g).map((r) => r.rate));
    const ac = best("autocannon");
    const un = best("undici");
    const ratio = un / ac;
    const ok = ratio >= 1 - CALIBRATION_TOLERANCE;
    log(
      `calibration: ${rounds.map((r) => `${r.generator} ${Math.round(r.rate)} req/s (server ${round(r.serverCpu * 100)} %)`).join(", ")}; undici/autocannon ${round(ratio, 3)}${ok ? "" : " — OUT OF TOLERANCE"}`,
    );
    return { autocannon: ac, undici: un, ratio, ok, rounds };
  } finally {
    await handle.stop();
  }
}
