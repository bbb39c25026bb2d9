// @ts-check
/**
 * The trace view: one message's or one event's story from the kernel's own records (no tracing backend),
 * opened by the hash routes `#/trace/<podId>/<eventId>` and `#/trace/<podId>/message/<messageId>`. It shows
 * the trace id (copyable) when the cause carried one, the events, and a timeline with one lane for the pod's
 * messages and one per agent, each record at its time relative to the first (+12 ms). The refresh loop calls
 * `load` every second while it is open; the page is redrawn only when the answer changed.
 *
 * Must never: put the kernel's text into the page as HTML (dom.js `h` makes text nodes).
 */
import { ApiError } from "../api.js";
import { $, h, toast } from "../dom.js";
import { timeOf } from "../model.js";
import {
  badLinkText,
  buildTimeline,
  formatOffset,
  POD_LANE,
  traceErrorText,
  traceHref,
} from "../trace-model.js";

/** @typedef {import("../trace-model.js").TraceView} TraceView */

/** @param {{ session: import("../session.js").Session }} ctx */
export function createTracePanel({ session }) {
  const root = $("trace-view");
  const title = $("trace-title");
  const body = $("trace-body");
  /** @type {{podId: string, eventId?: string, messageId?: string} | null} */
  let route = null;
  let lastKey = "";

  const show = (/** @type {string} */ key, /** @type {Node[]} */ nodes) => {
    if (key === lastKey) return;
    lastKey = key;
    body.replaceChildren(...nodes);
  };

  const stateBox = (/** @type {string} */ kind, /** @type {string} */ text) =>
    h(
      "p",
      { class: `trace-state ${kind}`, "data-trace-state": kind, role: kind === "error" ? "alert" : "status" },
      text,
    );

  async function copy(/** @type {string} */ text) {
    try {
      await navigator.clipboard.writeText(text);
      toast("Trace id copied.");
    } catch {
      // No clipboard (an insecure origin, or denied): select the id so Ctrl-C copies it.
      const el = body.querySelector(".trace-id");
      if (el) getSelection()?.selectAllChildren(el);
      toast("Select and copy the trace id (the clipboard is not available here).");
    }
  }

  function traceIdLine(/** @type {TraceView} */ view) {
    if (!view.traceId)
      return h(
        "p",
        { class: "trace-id-line muted small", "data-trace-id": "" },
        "No trace id: the request that caused this carried no traceparent, and the kernel records no spans.",
      );
    return h(
      "p",
      { class: "trace-id-line", "data-trace-id": view.traceId },
      "Trace id ",
      h("code", { class: "trace-id" }, view.traceId),
      " ",
      h("button", { type: "button", class: "copy", onclick: () => copy(view.traceId ?? "") }, "Copy"),
    );
  }

  function summary(/** @type {TraceView} */ view, /** @type {string} */ podId) {
    const m = view.message;
    return h(
      "div",
      { class: "trace-summary" },
      m
        ? h(
            "p",
            { class: "trace-root" },
            "Message ",
            h("code", {}, m.id),
            ` by ${m.authorName} (${m.authorKind}) at `,
            h("time", { datetime: m.createdAt }, timeOf(m.createdAt)),
          )
        : h(
            "p",
            { class: "trace-root muted small" },
            "An event with no message behind it (injected or requeued).",
          ),
      view.events.length
        ? h(
            "ul",
            { class: "trace-events" },
            ...view.events.map((e) =>
              h(
                "li",
                { "data-event": e.id },
                h("a", { href: traceHref({ podId, eventId: e.id }) }, h("code", {}, e.id)),
                ` ${e.type} for ${e.agentName} `,
                h("span", { class: `state s-${e.state}` }, e.state),
              ),
            ),
          )
        : null,
    );
  }

  function timeline(/** @type {TraceView} */ view) {
    const { lanes, rows } = buildTimeline(view);
    if (!rows.length)
      return stateBox("empty", "No records yet: the kernel has written nothing for this trace.");
    const laneName = (/** @type {string} */ l) => (l === POD_LANE ? "pod" : l);
    return h(
      "div",
      { class: "timeline-wrap" },
      h(
        "table",
        { class: "timeline" },
        h(
          "thead",
          {},
          h("tr", {}, h("th", {}, "Time"), ...lanes.map((l) => h("th", { "data-lane": l }, laneName(l)))),
        ),
        h(
          "tbody",
          {},
          ...rows.map((r) =>
            h(
              "tr",
              { "data-kind": r.entry.kind, "data-lane": r.lane, "data-at": r.entry.at },
              h(
                "td",
                { class: "offset" },
                h("time", { datetime: r.entry.at, title: r.entry.at }, formatOffset(r.offsetMs)),
              ),
              ...lanes.map((l) =>
                h("td", { class: l === r.lane ? "lane hit" : "lane" }, l === r.lane ? entryBox(r) : null),
              ),
            ),
          ),
        ),
      ),
    );
  }

  function entryBox(/** @type {ReturnType<typeof buildTimeline>["rows"][number]} */ r) {
    const e = r.entry;
    return h(
      "div",
      { class: `entry k-${e.kind.replace(".", "-")}` },
      h("span", { class: "entry-title" }, r.title),
      r.detail ? h("span", { class: "entry-detail" }, r.detail) : null,
      e.messageId ? h("code", { class: "entry-id" }, e.messageId) : null,
      e.eventId && e.kind === "event.enqueued" ? h("code", { class: "entry-id" }, e.eventId) : null,
    );
  }

  return {
    /** Opens the view for a route (or a bad link); the next `load` fills it. */
    open(/** @type {import("../trace-model.js").Route} */ r) {
      root.hidden = false;
      lastKey = "";
      if (r.view === "bad-trace") {
        route = null;
        title.textContent = "Trace";
        show("bad", [stateBox("not-found", badLinkText(r.hash))]);
        return;
      }
      if (r.view !== "trace") return;
      route = r;
      title.textContent =
        "messageId" in r ? `Trace of message ${r.messageId}` : `Trace of event ${r.eventId}`;
      show("loading", [stateBox("loading", "Loading…")]);
    },
    close() {
      root.hidden = true;
      route = null;
      lastKey = "";
      body.replaceChildren();
    },
    /** Reads the trace again; 401 is thrown for the caller to sign out. */
    async load() {
      const { api } = session;
      const r = route;
      if (!api || !r) return;
      try {
        const view = /** @type {TraceView} */ (
          r.messageId
            ? await api.messageTrace(r.podId, r.messageId)
            : await api.eventTrace(r.podId, r.eventId ?? "")
        );
        if (r !== route) return; // another trace was opened meanwhile
        show(JSON.stringify(view), [traceIdLine(view), summary(view, r.podId), timeline(view)]);
      } catch (err) {
        if (r !== route) return;
        if (err instanceof ApiError && err.status === 401) throw err;
        const e = err instanceof ApiError ? err : new ApiError(0, "network_error", String(err));
        const kind = e.status === 404 ? "not-found" : "error";
        show(`error:${e.code}`, [stateBox(kind, traceErrorText(e, r))]);
      }
    },
  };
}
