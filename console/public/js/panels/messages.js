// @ts-check
/**
 * The messages panel: the pod's messages oldest first (kept scrolled to the bottom when it was there),
 * each with a link to its trace, and the composer that posts as the human (Ctrl/⌘+Enter sends).
 */
import { $, describeError, h, toast } from "../dom.js";
import { timeOf } from "../model.js";
import { traceHref } from "../trace-model.js";

/** @param {import("../session.js").PanelContext} ctx */
export function createMessagesPanel({ session, refresh }) {
  const list = $("messages");
  let lastKey = "";

  async function post(/** @type {SubmitEvent} */ ev) {
    ev.preventDefault();
    const input = /** @type {HTMLTextAreaElement} */ ($("post-content"));
    const content = input.value.trim();
    if (!session.api || !session.podId || !content) return;
    try {
      await session.api.postMessage(session.podId, content);
      input.value = "";
      await refresh();
    } catch (err) {
      toast(`Post failed: ${describeError(err)}`, "error");
    }
  }

  $("post-form").addEventListener("submit", post);
  $("post-content").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey))
      /** @type {HTMLFormElement} */ ($("post-form")).requestSubmit();
  });

  return {
    reset() {
      lastKey = "";
      list.replaceChildren();
    },
    render(/** @type {any[]} */ messages) {
      const key = messages.map((m) => m.id).join(",");
      if (key === lastKey) return;
      lastKey = key;
      const oldestFirst = [...messages].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
      const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
      list.replaceChildren(
        ...oldestFirst.map((m) => {
          const author = m.author ?? {};
          return h(
            "li",
            { class: `message ${author.kind === "agent" ? "from-agent" : "from-human"}`, "data-id": m.id },
            h(
              "div",
              { class: "meta" },
              h("span", { class: "author" }, author.name ?? author.id ?? "?"),
              h("span", { class: `kind ${author.kind ?? ""}` }, author.kind ?? ""),
              h("time", { datetime: m.createdAt }, timeOf(m.createdAt)),
              m.replyToMessageId ? h("span", { class: "reply" }, "reply") : null,
              h(
                "a",
                {
                  class: "trace-link",
                  href: traceHref({ podId: session.podId ?? "", messageId: m.id }),
                  title: "Follow this message through the kernel: its events, deliveries, acks and replies",
                },
                "trace",
              ),
            ),
            h("div", { class: "content" }, m.content),
          );
        }),
      );
      if (atBottom || list.childElementCount === messages.length) list.scrollTop = list.scrollHeight;
    },
  };
}
