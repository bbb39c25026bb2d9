// @ts-check
/**
 * The agent queues panel: each installed agent's events, newest first, with counts per state. A leased
 * event counts down to its lease end and a released one to its availableAt, both on the kernel's clock
 * (`session.offsetMs`); `tick` updates the countdowns between refreshes without re-rendering.
 *
 * A running delivery (leased, lease running) has a Stop button: it cancels the event as the signed-in human
 * (feature `cancel`), and a cancelled event shows its reason, when, and who stopped it. A failed Stop says
 * why in its row and in a toast, and the button comes back. Every row links to its event's trace view.
 */
import { ApiError } from "../api.js";
import { $, describeError, h, toast } from "../dom.js";
import {
  agentKey,
  cancellerLabel,
  cancelReasonText,
  countByState,
  delayRemainingMs,
  formatAvailableIn,
  formatCountdown,
  isRunning,
  leaseRemainingMs,
  STATES,
  stopErrorText,
  stopOutcome,
  timeOf,
} from "../model.js";
import { traceHref } from "../trace-model.js";

const HEADINGS = ["Event", "Type", "State", "Attempts", "Lease", "Release", "Created", ""];

function stateBadge(/** @type {string} */ s) {
  return h("span", { class: `state s-${s}` }, s);
}

/** @param {import("../session.js").PanelContext} ctx */
export function createQueuesPanel({ session, refresh }) {
  const root = $("queues");
  let lastKey = "";
  /** Events whose Stop is on its way to the kernel: their button stays disabled across re-renders. */
  const stopping = new Set();
  /** The last failed Stop of each event, shown in its row until the next Stop of it or its state changes. */
  const stopErrors = new Map();

  /** The row of an event as it is on the page now (a refresh may have replaced the one clicked). */
  const rowOf = (/** @type {string} */ id) =>
    /** @type {HTMLElement | null} */ (root.querySelector(`tr[data-event="${CSS.escape(id)}"]`));

  function showStopState(/** @type {string} */ id) {
    const row = rowOf(id);
    const button = /** @type {HTMLButtonElement | null | undefined} */ (row?.querySelector("button.stop"));
    if (button) {
      button.disabled = stopping.has(id);
      button.textContent = stopping.has(id) ? "Stopping…" : "Stop";
    }
    const cell = row?.querySelector("td.actions");
    cell?.querySelector(".stop-error")?.remove();
    if (cell && stopErrors.has(id)) cell.append(stopError(stopErrors.get(id)));
  }

  const stopError = (/** @type {string} */ text) =>
    h("span", { class: "stop-error error", role: "alert" }, text);

  async function stop(/** @type {string} */ id) {
    const { api, podId } = session;
    if (!api || !podId || stopping.has(id)) return;
    stopping.add(id);
    stopErrors.delete(id);
    showStopState(id);
    try {
      const answer = await api.cancelEvent(podId, id);
      toast(stopOutcome(id, answer));
    } catch (err) {
      const text = `Stop failed: ${err instanceof ApiError ? stopErrorText(err) : describeError(err)}`;
      stopErrors.set(id, text);
      toast(text, "error");
    } finally {
      stopping.delete(id);
      showStopState(id);
    }
    await refresh();
  }

  function cancelInfo(/** @type {any} */ e) {
    const reason = cancelReasonText(e.cancelReason);
    return h(
      "span",
      { class: "cancel-info" },
      h("span", { class: "cancel-reason", title: e.cancelReason ?? "" }, reason),
      h(
        "span",
        { class: "cancel-meta" },
        "by ",
        h("span", { class: "cancelled-by" }, cancellerLabel(e.cancelledBy, session.me?.id)),
        e.cancelledAt ? " at " : "",
        e.cancelledAt ? h("time", { datetime: e.cancelledAt }, timeOf(e.cancelledAt)) : null,
        // The driver acks a cancelled delivery once its handler has stopped (CAP-CANCEL-18).
        e.ackedAt ? h("span", { class: "cancel-acked" }, " · driver stopped") : null,
      ),
    );
  }

  function eventRow(/** @type {any} */ e, /** @type {number} */ now) {
    const running = isRunning(e, session.offsetMs, now);
    return h(
      "tr",
      {
        "data-event": e.id,
        "data-state": e.state,
        ...(delayRemainingMs(e, session.offsetMs, now) !== null ? { "data-delayed": "" } : {}),
      },
      h("td", {}, h("code", {}, e.id)),
      h("td", {}, e.type),
      h("td", {}, stateBadge(e.state)),
      h("td", { class: "num attempts" }, String(e.attempts)),
      h(
        "td",
        { class: "lease" },
        e.state === "leased" ? h("span", { class: "countdown", "data-lease": e.leaseExpiresAt }) : null,
        e.state === "failed" ? h("span", { class: "muted" }, e.failReason ?? "") : null,
        e.state === "cancelled" ? cancelInfo(e) : null,
      ),
      h(
        "td",
        { class: "release" },
        // A released event waiting out its delay: when it is ready again, on the kernel's clock.
        e.state === "pending" && e.availableAt
          ? h("span", { class: "countdown available", "data-available": e.availableAt })
          : null,
        e.releaseReason
          ? h("span", { class: "release-reason", title: e.releaseReason }, e.releaseReason)
          : null,
      ),
      h("td", {}, h("time", { datetime: e.createdAt }, timeOf(e.createdAt))),
      h(
        "td",
        { class: "actions" },
        running
          ? h(
              "button",
              {
                type: "button",
                class: "stop",
                title:
                  "Cancel this delivery: the driver is told to stop, and the event is never delivered again",
                disabled: stopping.has(e.id),
                onclick: () => stop(e.id),
              },
              stopping.has(e.id) ? "Stopping…" : "Stop",
            )
          : null,
        h(
          "a",
          {
            class: "trace-link",
            href: traceHref({ podId: session.podId ?? "", eventId: e.id }),
            title: "This event's story: its cause, every delivery, the ack and the reply",
          },
          "Trace",
        ),
        stopErrors.has(e.id) ? stopError(stopErrors.get(e.id)) : null,
      ),
    );
  }

  function agentBlock(/** @type {import("../session.js").AgentQueue} */ a) {
    const counts = countByState(a.events);
    const now = Date.now();
    return h(
      "div",
      { class: "agent", "data-agent": agentKey(a) },
      h(
        "h3",
        {},
        a.agentName,
        h("span", { class: "instance" }, a.instanceId),
        h(
          "span",
          { class: "counts" },
          ...STATES.map((s) => h("span", { class: `count s-${s}`, title: s }, `${s} ${counts[s]}`)),
        ),
      ),
      a.events.length
        ? h(
            "table",
            { class: "events" },
            h("thead", {}, h("tr", {}, ...HEADINGS.map((t) => h("th", {}, t)))),
            h("tbody", {}, ...a.events.map((e) => eventRow(e, now))),
          )
        : h("p", { class: "muted small" }, "No events yet."),
    );
  }

  function tick() {
    const now = Date.now();
    for (const el of document.querySelectorAll("[data-lease]")) {
      const ms = leaseRemainingMs(el.getAttribute("data-lease"), session.offsetMs, now);
      el.textContent = formatCountdown(ms);
      const ended = ms !== null && ms <= 0;
      el.classList.toggle("expired", ended);
      // A lease that ended between refreshes is no running turn any more: nothing to stop.
      const button = /** @type {HTMLButtonElement | null | undefined} */ (
        el.closest("tr")?.querySelector("button.stop")
      );
      if (button && ended) {
        button.disabled = true;
        button.title = "The lease ended: the event waits for its next delivery";
      }
    }
    for (const el of document.querySelectorAll("[data-available]")) {
      const ms = leaseRemainingMs(el.getAttribute("data-available"), session.offsetMs, now);
      el.textContent = formatAvailableIn(ms);
      el.classList.toggle("expired", ms === null || ms <= 0);
      el.closest("tr")?.toggleAttribute("data-delayed", ms !== null && ms > 0);
    }
  }

  return {
    tick,
    reset() {
      lastKey = "";
      stopping.clear();
      stopErrors.clear();
      root.replaceChildren();
    },
    render(/** @type {import("../session.js").AgentQueue[]} */ agents) {
      // A Stop error belongs to the state it was shown in: once the event moved on, it is dropped.
      const states = new Map(agents.flatMap((a) => a.events.map((e) => [e.id, e.state])));
      for (const id of stopErrors.keys()) if (states.get(id) !== "leased") stopErrors.delete(id);
      // Re-render only on change, so a click is never lost to a refresh; countdowns tick on their own.
      const key = JSON.stringify([
        [...stopErrors.keys()],
        agents.map((a) => [
          agentKey(a),
          a.events.map((e) => [
            e.id,
            e.state,
            e.attempts,
            e.leaseExpiresAt,
            e.availableAt,
            e.releaseReason,
            e.cancelReason,
            e.cancelledAt,
            e.cancelledBy,
            e.ackedAt,
          ]),
        ]),
      ]);
      if (key === lastKey) return;
      lastKey = key;
      if (!agents.length) {
        root.replaceChildren(h("p", { class: "muted" }, "No agent is installed in this pod."));
        return;
      }
      root.replaceChildren(...agents.map(agentBlock));
      tick();
    },
  };
}
