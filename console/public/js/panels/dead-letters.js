// @ts-check
/**
 * The dead letters panel (pod admins only): events that reached the delivery limit or lost their
 * installation, each with a Requeue button that gives it a fresh delivery budget.
 */
import { $, describeError, h, toast } from "../dom.js";

const HEADINGS = ["Event", "Agent", "Type", "Attempts", "Reason", ""];

/** @param {import("../session.js").PanelContext} ctx */
export function createDeadLettersPanel({ session, refresh }) {
  const root = $("dead-letters");
  let lastKey = "";

  async function requeue(/** @type {string} */ eventId) {
    if (!session.api) return;
    try {
      await session.api.requeue(eventId);
      toast(`Requeued ${eventId}`);
      await refresh();
    } catch (err) {
      toast(`Requeue failed: ${describeError(err)}`, "error");
    }
  }

  function row(/** @type {any} */ e) {
    return h(
      "tr",
      { "data-dead": e.id },
      h("td", {}, h("code", {}, e.id)),
      h("td", {}, e.agentName ?? ""),
      h("td", {}, e.type),
      h("td", { class: "num" }, String(e.attempts)),
      h(
        "td",
        {},
        e.failReason ?? "",
        e.releaseReason
          ? h("span", { class: "release-reason", title: e.releaseReason }, e.releaseReason)
          : null,
      ),
      h("td", {}, h("button", { type: "button", class: "requeue", onclick: () => requeue(e.id) }, "Requeue")),
    );
  }

  return {
    reset() {
      lastKey = "";
      root.replaceChildren();
    },
    /** `null`: the person is a member, not an admin, of the pod. */
    render(/** @type {any[] | null} */ events) {
      if (events === null) {
        root.replaceChildren(
          h("p", { class: "muted small" }, "Only a pod admin can list and requeue dead letters."),
        );
        return;
      }
      const key = JSON.stringify(events.map((e) => [e.id, e.attempts, e.releaseReason]));
      if (key === lastKey) return;
      lastKey = key;
      if (!events.length) {
        root.replaceChildren(h("p", { class: "muted small" }, "None."));
        return;
      }
      root.replaceChildren(
        h(
          "table",
          { class: "events" },
          h("thead", {}, h("tr", {}, ...HEADINGS.map((t) => h("th", {}, t)))),
          h("tbody", {}, ...events.map(row)),
        ),
      );
    },
  };
}
