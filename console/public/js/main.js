// @ts-check
/**
 * The dev console: pick a pod, watch its messages and each agent's queue (refreshed every second, lease
 * countdowns ticking on the kernel's clock), stop a running delivery, post as a human, inject an event,
 * requeue a dead letter, and follow one message or event through the kernel in the trace view (the hash
 * routes `#/trace/<podId>/<eventId>` and `#/trace/<podId>/message/<messageId>`, so a reload keeps it open).
 * All through the admin API (api.js) with the human token kept in localStorage.
 *
 * This module only wires the panels (panels/, one per section of the page) to the session and runs the
 * refresh loop; what each panel shows and does is in its own module.
 */
import { ApiError } from "./api.js";
import { $ } from "./dom.js";
import { clockOffset, takeTokenFromHash } from "./model.js";
import { createDeadLettersPanel } from "./panels/dead-letters.js";
import { createInjectPanel } from "./panels/inject.js";
import { createLoginPanel } from "./panels/login.js";
import { createMessagesPanel } from "./panels/messages.js";
import { createPodPicker } from "./panels/pods.js";
import { showProfile } from "./panels/profile.js";
import { createQueuesPanel } from "./panels/queues.js";
import { createTracePanel } from "./panels/trace.js";
import { createSession, forgetToken, savedToken, savePod, saveToken } from "./session.js";
import { parseRoute } from "./trace-model.js";

const REFRESH_MS = 1000;

const session = createSession();
/** @type {ReturnType<typeof setTimeout> | undefined} */
let timer;
let refreshing = false;

const ctx = { session, refresh };
const messages = createMessagesPanel(ctx);
const queues = createQueuesPanel(ctx);
const inject = createInjectPanel(ctx);
const deadLetters = createDeadLettersPanel(ctx);
const trace = createTracePanel(ctx);
let route = parseRoute(location.hash);
const pods = createPodPicker({ session, onSelect: selectPod });
const login = createLoginPanel({
  async onSignedIn(api, me) {
    session.api = api;
    session.me = me;
    await pods.load();
    applyRoute();
  },
  onSignOut: signOut,
});

function signOut() {
  stopRefresh();
  session.api = null;
  session.me = null;
  pods.hide();
  trace.close();
  $("live").hidden = true;
}

/** Shows what the hash names: the pod view, or a trace (of the pod it names, chosen in the picker). */
function applyRoute() {
  route = parseRoute(location.hash);
  if (!session.api) return; // the sign-in panel shows; signing in applies the route
  if (route.view === "pod") {
    trace.close();
    $("app").hidden = false;
  } else {
    $("app").hidden = true;
    if (route.view === "trace" && route.podId !== session.podId) pods.choose(route.podId);
    trace.open(route);
  }
  void refresh();
}

function selectPod(/** @type {string} */ podId) {
  session.podId = podId;
  savePod(podId);
  messages.reset();
  queues.reset();
  deadLetters.reset();
  startRefresh();
}

// ---- refresh loop (the pod view's reads one chain at a time, never overlapping)

function startRefresh() {
  stopRefresh();
  $("live").hidden = false;
  const tick = async () => {
    await refresh();
    timer = setTimeout(tick, REFRESH_MS);
  };
  void tick();
}

function stopRefresh() {
  clearTimeout(timer);
  timer = undefined;
}

async function refresh() {
  if (!session.api) return;
  try {
    // A trace loads on its own (its panel keeps one answer per route), so opening one never waits a tick.
    if (route.view !== "pod") await trace.load();
    else if (!(await refreshPod())) return;
    $("live").classList.remove("stale");
  } catch (err) {
    $("live").classList.add("stale");
    if (err instanceof ApiError && err.status === 401) {
      forgetToken();
      signOut();
      login.show(`Signed out: ${err.message}`);
    }
  }
}

/** One refresh of the pod view's panels; false when another was running or nothing was read. */
async function refreshPod() {
  const { api, podId } = session;
  if (!api || !podId || refreshing) return false;
  refreshing = true;
  try {
    // Dead letters are for pod admins; a member still sees messages and queues.
    const dead = api
      .deadLetters(podId)
      .catch((err) => (err instanceof ApiError && err.status === 403 ? null : Promise.reject(err)));
    const [list, queue, letters] = await Promise.all([api.messages(podId), api.queue(podId), dead]);
    if (podId !== session.podId || route.view !== "pod") return false; // the pod or the view changed
    messages.render(list);
    session.offsetMs = clockOffset(queue.now, Date.now());
    session.agents = queue.agents;
    queues.render(queue.agents);
    inject.render(queue.agents);
    deadLetters.render(letters);
    return true;
  } finally {
    refreshing = false;
  }
}

// ---- start

window.addEventListener("hashchange", applyRoute);
// Picking another pod while a trace is open goes back to the pod view.
$("pod-select").addEventListener("change", () => {
  if (route.view !== "pod") location.hash = "#/";
});
void showProfile();
setInterval(queues.tick, 200);
const handed = takeTokenFromHash(location.hash);
if (handed.token) {
  saveToken(handed.token);
  history.replaceState(null, "", location.pathname + location.search + handed.hash);
}
const token = savedToken();
if (token) void login.signIn(token);
else {
  signOut();
  login.show();
}
