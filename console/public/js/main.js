// @ts-check
/**
 * The dev console: pick a pod, watch its messages and each agent's queue (refreshed every second, lease
 * countdowns ticking on the kernel's clock), post as a human, inject an event, requeue a dead letter.
 * All through the admin API (api.js) with the human token kept in localStorage.
 *
 * Everything from the kernel is put into the page as text (textContent), never as HTML.
 */
import { ApiError, createApi } from "./api.js";
import {
  agentKey,
  clockOffset,
  countByState,
  DOCUMENTED_TYPES,
  delayRemainingMs,
  formatAvailableIn,
  formatCountdown,
  leaseRemainingMs,
  parsePayload,
  payloadTemplate,
  STATES,
  takeTokenFromHash,
  timeOf,
} from "./model.js";

const TOKEN_KEY = "cap-console.token";
const POD_KEY = "cap-console.pod";
const REFRESH_MS = 1000;

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * Builds an element; string children become text nodes.
 * @param {string} tag @param {Record<string, string | boolean | ((e: Event) => void)>} [attrs] @param {(Node | string | null | undefined)[]} children
 */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v);
    else if (v === true) el.setAttribute(k, "");
    else if (v !== false) el.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) el.append(c);
  return el;
}

const state = {
  /** @type {ReturnType<typeof createApi> | null} */ api: null,
  /** @type {string | null} */ podId: null,
  offsetMs: 0,
  /** @type {{agentName: string, instanceId: string, events: any[]}[]} */ agents: [],
  /** @type {ReturnType<typeof setTimeout> | undefined} */ timer: undefined,
  refreshing: false,
  lastMessagesKey: "",
  lastQueuesKey: "",
  lastDeadKey: "",
};

function toast(/** @type {string} */ text, kind = "info") {
  const el = $("toast");
  el.textContent = text;
  el.className = `toast ${kind}`;
  el.hidden = false;
  clearTimeout(/** @type {any} */ (el).hideTimer);
  /** @type {any} */ (el).hideTimer = setTimeout(() => {
    el.hidden = true;
  }, 4000);
}

function describeError(/** @type {unknown} */ err) {
  return err instanceof ApiError ? `${err.message} (${err.code})` : String(err);
}

// ---- sign-in

function showLogin(/** @type {string} */ error = "") {
  stopRefresh();
  state.api = null;
  $("login").hidden = false;
  $("app").hidden = true;
  $("sign-out").hidden = true;
  /** @type {HTMLElement} */ (document.querySelector(".pod-picker")).hidden = true;
  $("live").hidden = true;
  $("whoami").textContent = "";
  $("login-error").textContent = error;
  /** @type {HTMLInputElement} */ ($("token-input")).focus();
}

async function signIn(/** @type {string} */ token) {
  const api = createApi({ token });
  let me;
  try {
    me = await api.me();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      localStorage.removeItem(TOKEN_KEY);
      showLogin(`The kernel refused this token: ${err.message}`);
      return;
    }
    showLogin(describeError(err));
    return;
  }
  localStorage.setItem(TOKEN_KEY, token);
  state.api = api;
  $("login").hidden = true;
  $("app").hidden = false;
  $("sign-out").hidden = false;
  $("whoami").textContent = `signed in as ${me.name ?? me.id}`;
  await loadPods();
}

// ---- pods

async function loadPods() {
  if (!state.api) return;
  const pods = await state.api.pods();
  const select = /** @type {HTMLSelectElement} */ ($("pod-select"));
  select.replaceChildren(
    ...pods.map((/** @type {any} */ p) => h("option", { value: p.id }, `${p.name} (${p.id})`)),
  );
  /** @type {HTMLElement} */ (document.querySelector(".pod-picker")).hidden = false;
  if (!pods.length) {
    toast("This user is not a member of any pod yet.", "error");
    return;
  }
  const wanted = new URLSearchParams(location.search).get("pod") ?? localStorage.getItem(POD_KEY);
  const pick = pods.find((/** @type {any} */ p) => p.id === wanted) ?? pods[0];
  select.value = pick.id;
  selectPod(pick.id);
}

function selectPod(/** @type {string} */ podId) {
  state.podId = podId;
  state.lastMessagesKey = "";
  state.lastQueuesKey = "";
  state.lastDeadKey = "";
  localStorage.setItem(POD_KEY, podId);
  $("messages").replaceChildren();
  $("queues").replaceChildren();
  $("dead-letters").replaceChildren();
  startRefresh();
}

// ---- refresh loop (one request chain at a time, never overlapping)

function startRefresh() {
  stopRefresh();
  $("live").hidden = false;
  const tick = async () => {
    await refresh();
    state.timer = setTimeout(tick, REFRESH_MS);
  };
  void tick();
}

function stopRefresh() {
  clearTimeout(state.timer);
  state.timer = undefined;
}

async function refresh() {
  const { api, podId } = state;
  if (!api || !podId || state.refreshing) return;
  state.refreshing = true;
  try {
    // Dead letters are for pod admins; a member still sees messages and queues.
    const deadLetters = api
      .deadLetters(podId)
      .catch((err) => (err instanceof ApiError && err.status === 403 ? null : Promise.reject(err)));
    const [messages, queue, dead] = await Promise.all([api.messages(podId), api.queue(podId), deadLetters]);
    if (podId !== state.podId) return; // the pod changed while we waited
    renderMessages(messages);
    state.offsetMs = clockOffset(queue.now, Date.now());
    state.agents = queue.agents;
    renderQueues(queue.agents);
    renderInjectAgents(queue.agents);
    renderDeadLetters(dead);
    $("live").classList.remove("stale");
  } catch (err) {
    $("live").classList.add("stale");
    if (err instanceof ApiError && err.status === 401) {
      localStorage.removeItem(TOKEN_KEY);
      showLogin(`Signed out: ${err.message}`);
    }
  } finally {
    state.refreshing = false;
  }
}

// ---- rendering

function renderMessages(/** @type {any[]} */ messages) {
  const key = messages.map((m) => m.id).join(",");
  if (key === state.lastMessagesKey) return;
  state.lastMessagesKey = key;
  const oldestFirst = [...messages].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
  const list = $("messages");
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
        ),
        h("div", { class: "content" }, m.content),
      );
    }),
  );
  if (atBottom || list.childElementCount === messages.length) list.scrollTop = list.scrollHeight;
}

function stateBadge(/** @type {string} */ s) {
  return h("span", { class: `state s-${s}` }, s);
}

function renderQueues(/** @type {{agentName: string, instanceId: string, events: any[]}[]} */ agents) {
  // Re-render only on change, so a click is never lost to a refresh; countdowns tick on their own.
  const key = JSON.stringify(
    agents.map((a) => [
      agentKey(a),
      a.events.map((e) => [e.id, e.state, e.attempts, e.leaseExpiresAt, e.availableAt, e.releaseReason]),
    ]),
  );
  if (key === state.lastQueuesKey) return;
  state.lastQueuesKey = key;
  if (!agents.length) {
    $("queues").replaceChildren(h("p", { class: "muted" }, "No agent is installed in this pod."));
    return;
  }
  $("queues").replaceChildren(
    ...agents.map((a) => {
      const counts = countByState(a.events);
      const now = Date.now();
      const rows = a.events.map((e) =>
        h(
          "tr",
          {
            "data-event": e.id,
            "data-state": e.state,
            ...(delayRemainingMs(e, state.offsetMs, now) !== null ? { "data-delayed": "" } : {}),
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
        ),
      );
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
              h(
                "thead",
                {},
                h(
                  "tr",
                  {},
                  ...["Event", "Type", "State", "Attempts", "Lease", "Release", "Created"].map((t) =>
                    h("th", {}, t),
                  ),
                ),
              ),
              h("tbody", {}, ...rows),
            )
          : h("p", { class: "muted small" }, "No events yet."),
      );
    }),
  );
  tickCountdowns();
}

function tickCountdowns() {
  const now = Date.now();
  for (const el of document.querySelectorAll("[data-lease]")) {
    const ms = leaseRemainingMs(el.getAttribute("data-lease"), state.offsetMs, now);
    el.textContent = formatCountdown(ms);
    el.classList.toggle("expired", ms !== null && ms <= 0);
  }
  for (const el of document.querySelectorAll("[data-available]")) {
    const ms = leaseRemainingMs(el.getAttribute("data-available"), state.offsetMs, now);
    el.textContent = formatAvailableIn(ms);
    el.classList.toggle("expired", ms === null || ms <= 0);
    el.closest("tr")?.toggleAttribute("data-delayed", ms !== null && ms > 0);
  }
}

function renderInjectAgents(/** @type {{agentName: string, instanceId: string}[]} */ agents) {
  const select = /** @type {HTMLSelectElement} */ ($("inject-agent"));
  const keys = agents.map(agentKey);
  const current = [...select.options].map((o) => o.value);
  if (keys.join("|") === current.join("|")) return;
  const chosen = select.value;
  select.replaceChildren(
    ...agents.map((a) => h("option", { value: agentKey(a) }, `${a.agentName} (${a.instanceId})`)),
  );
  if (keys.includes(chosen)) select.value = chosen;
}

function renderDeadLetters(/** @type {any[] | null} */ events) {
  if (events === null) {
    $("dead-letters").replaceChildren(
      h("p", { class: "muted small" }, "Only a pod admin can list and requeue dead letters."),
    );
    return;
  }
  const key = JSON.stringify(events.map((e) => [e.id, e.attempts, e.releaseReason]));
  if (key === state.lastDeadKey) return;
  state.lastDeadKey = key;
  if (!events.length) {
    $("dead-letters").replaceChildren(h("p", { class: "muted small" }, "None."));
    return;
  }
  $("dead-letters").replaceChildren(
    h(
      "table",
      { class: "events" },
      h(
        "thead",
        {},
        h("tr", {}, ...["Event", "Agent", "Type", "Attempts", "Reason", ""].map((t) => h("th", {}, t))),
      ),
      h(
        "tbody",
        {},
        ...events.map((e) =>
          h(
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
            h(
              "td",
              {},
              h("button", { type: "button", class: "requeue", onclick: () => requeue(e.id) }, "Requeue"),
            ),
          ),
        ),
      ),
    ),
  );
}

// ---- actions

async function requeue(/** @type {string} */ eventId) {
  if (!state.api) return;
  try {
    await state.api.requeue(eventId);
    toast(`Requeued ${eventId}`);
    await refresh();
  } catch (err) {
    toast(`Requeue failed: ${describeError(err)}`, "error");
  }
}

async function postMessage(/** @type {SubmitEvent} */ ev) {
  ev.preventDefault();
  const input = /** @type {HTMLTextAreaElement} */ ($("post-content"));
  const content = input.value.trim();
  if (!state.api || !state.podId || !content) return;
  try {
    await state.api.postMessage(state.podId, content);
    input.value = "";
    await refresh();
  } catch (err) {
    toast(`Post failed: ${describeError(err)}`, "error");
  }
}

async function injectEvent(/** @type {SubmitEvent} */ ev) {
  ev.preventDefault();
  if (!state.api || !state.podId) return;
  const agent = state.agents.find(
    (a) => agentKey(a) === /** @type {HTMLSelectElement} */ ($("inject-agent")).value,
  );
  const type = /** @type {HTMLInputElement} */ ($("inject-type")).value.trim();
  const payload = parsePayload(/** @type {HTMLTextAreaElement} */ ($("inject-payload")).value);
  if (!agent) return toast("Pick an agent.", "error");
  if (payload instanceof Error) return toast(payload.message, "error");
  try {
    const created = await state.api.injectEvent({
      podId: state.podId,
      agentName: agent.agentName,
      instanceId: agent.instanceId,
      type,
      payload,
    });
    toast(`Injected ${type} ${created?.id ?? ""} for ${agent.agentName}`);
    await refresh();
  } catch (err) {
    toast(`Inject failed: ${describeError(err)}`, "error");
  }
}

function fillPayloadTemplate() {
  const type = /** @type {HTMLInputElement} */ ($("inject-type")).value.trim();
  const template = payloadTemplate(type, { podId: state.podId ?? "", now: new Date() });
  /** @type {HTMLTextAreaElement} */ ($("inject-payload")).value = JSON.stringify(template, null, 2);
}

// ---- start

/** A kernel run with a wire profile other than plain CAP (`--profile production`) says so in the header. */
async function showProfile() {
  try {
    const { profile } = await (await fetch(new URL("../readyz", location.href))).json();
    if (typeof profile !== "string") return;
    const el = $("profile");
    el.dataset.profile = profile;
    if (profile === "cap") return;
    el.textContent = `${profile} profile`;
    el.title = `Its CAP routes speak the ${profile} kernel's dialect (event names, answers) for deployed drivers.`;
    el.hidden = false;
  } catch {
    // A console served apart from its kernel has no /readyz beside it: no badge.
  }
}

function start() {
  void showProfile();
  $("event-types").replaceChildren(...DOCUMENTED_TYPES.map((t) => h("option", { value: t })));
  fillPayloadTemplate();
  $("inject-type").addEventListener("change", fillPayloadTemplate);
  $("login-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const token = /** @type {HTMLInputElement} */ ($("token-input")).value.trim();
    if (token) void signIn(token);
  });
  $("sign-out").addEventListener("click", () => {
    localStorage.removeItem(TOKEN_KEY);
    showLogin();
  });
  $("pod-select").addEventListener("change", (ev) =>
    selectPod(/** @type {HTMLSelectElement} */ (ev.target).value),
  );
  $("post-form").addEventListener("submit", postMessage);
  $("post-content").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey))
      /** @type {HTMLFormElement} */ ($("post-form")).requestSubmit();
  });
  $("inject-form").addEventListener("submit", injectEvent);
  setInterval(tickCountdowns, 200);

  const handed = takeTokenFromHash(location.hash);
  if (handed.token) {
    localStorage.setItem(TOKEN_KEY, handed.token);
    history.replaceState(null, "", location.pathname + location.search + handed.hash);
  }
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) void signIn(token);
  else showLogin();
}

start();
