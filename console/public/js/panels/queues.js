// @ts-check
/**
 * The agent queues panel: each installed agent's events, newest first, with counts per state. A leased
 * event counts down to its lease end and a released one to its availableAt, both on the kernel's clock
 * (`session.offsetMs`); `tick` updates the countdowns between refreshes without re-rendering.
 */
import { $, h } from "../dom.js";
import {
  agentKey,
  countByState,
  delayRemainingMs,
  formatAvailableIn,
  formatCountdown,
  leaseRemainingMs,
  STATES,
  timeOf,
} from "../model.js";

const HEADINGS = ["Event", "Type", "State", "Attempts", "Lease", "Release", "Created"];

function stateBadge(/** @type {string} */ s) {
  return h("span", { class: `state s-${s}` }, s);
}

/** @param {import("../session.js").PanelContext} ctx */
export function createQueuesPanel({ session }) {
  const root = $("queues");
  let lastKey = "";

  function eventRow(/** @type {any} */ e, /** @type {number} */ now) {
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
      el.classList.toggle("expired", ms !== null && ms <= 0);
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
      root.replaceChildren();
    },
    render(/** @type {import("../session.js").AgentQueue[]} */ agents) {
      // Re-render only on change, so a click is never lost to a refresh; countdowns tick on their own.
      const key = JSON.stringify(
        agents.map((a) => [
          agentKey(a),
          a.events.map((e) => [e.id, e.state, e.attempts, e.leaseExpiresAt, e.availableAt, e.releaseReason]),
        ]),
      );
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
