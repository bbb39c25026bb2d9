/**
 * Figures that divide one figure of the run by another of the same run: the goals of the drains that the
 * kernel issue states as comparisons — the SDK's drain against the bench's own drain of the same store and
 * ack mode, every drain against the least queue (the ceiling) of the same store and ack mode — and, with
 * no goal, the pollId drain against the plain one. Computed when the report is finished, from its rows.
 * Must never compare figures of different runs, or write a comparison whose two figures were not both
 * measured: it is then listed as skipped, with the one that is missing.
 */
import { GOALS } from "./figures.mjs";
import { round } from "./stats.mjs";

const STORES = ["sqlite", "postgres"];
const label = (store) => (store === "sqlite" ? "SQLite" : "PostgreSQL");

/** The events/s figure of a drain, by its id stem (`drain`, `drain-batch`, …) and store. */
const events = (stem, store) => `${stem}-${store}-events`;
/** The ceiling of an ack mode: on PostgreSQL one ack per event has two ways to write, the faster counts. */
const ceilings = (store, ack) =>
  ack === "batch"
    ? [`ceiling-${store}-batch-events`]
    : store === "sqlite"
      ? ["ceiling-sqlite-each-events"]
      : ["ceiling-postgres-each-events", "ceiling-postgres-shared-events"];
/** The bench's own drain of an ack mode. */
const bare = (store, ack) => [events(ack === "batch" ? "drain-batch" : "drain", store)];

const DRAIN_NAMES = {
  drain: "one-ack drain",
  "drain-batch": "batch-ack drain",
  "drain-pollid": "one-ack drain with a pollId per poll",
  "drain-sdk": "SDK runDriver drain",
};

/** Each comparison: its id, what it divides (`over` gets the numerator row) and its goal, if any. */
export const COMPARISONS = STORES.flatMap((store) => [
  {
    id: `drain-sdk-${store}-over-bare`,
    of: events("drain-sdk", store),
    over: (row) => bare(store, row._ack),
    name: `${label(store)}, SDK runDriver drain ÷ the bench's drain of its ack mode`,
    goal: GOALS.sdkOverBare,
  },
  {
    id: `drain-pollid-${store}-over-bare`,
    of: events("drain-pollid", store),
    over: () => bare(store, "each"),
    name: `${label(store)}, one-ack drain with a pollId per poll ÷ without`,
  },
  ...Object.entries(DRAIN_NAMES).map(([stem, what]) => ({
    id: `${stem}-${store}-over-ceiling`,
    of: events(stem, store),
    over: (row) => ceilings(store, row._ack),
    name: `${label(store)}, ${what} ÷ the least queue of its ack mode`,
    goal: GOALS.drainOverCeiling,
  })),
]);

/**
 * The comparison rows of a finished run's `rows` (by id; the first of several `over` rows that is the
 * largest is the denominator), and the comparisons skipped because their denominator was not measured.
 * A comparison whose numerator was not measured is left out: that figure's own skip says why.
 */
export function compare(rows) {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out = [];
  const skipped = [];
  for (const c of COMPARISONS) {
    const of = byId.get(c.of);
    if (!of) continue;
    const candidates = c.over(of);
    const over = candidates
      .map((id) => byId.get(id))
      .filter(Boolean)
      .sort((a, b) => b.value - a.value)[0];
    if (!over || over.value <= 0) {
      skipped.push({ ids: [c.id], reason: `needs ${candidates.join(" or ")} measured in the same run` });
      continue;
    }
    out.push({
      id: c.id,
      group: "Drains against their yardsticks",
      name: c.name,
      unit: `× ${over.id}`,
      value: round(of.value / over.value, 3),
      store: of.store,
      ...(c.goal ? { goal: c.goal } : {}),
      notes: `${c.of} ${of.value} events/s ÷ ${over.id} ${over.value} events/s, both measured in this run`,
    });
  }
  return { rows: out, skipped };
}
