// @ts-check
/**
 * The dev console: pick a pod, watch its messages and each agent's queue (refreshed every second, lease
 * countdowns ticking on the kernel's clock), stop a running delivery, post as a human, inject an event,
 * requeue a dead letter.
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
import { createSession, forgetToken, savedToken, savePod, saveToken } from "./session.js";

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
const pods = createPodPicker({ session, onSelect: selectPod });
const login = createLoginPanel({
  async onSignedIn(api, me) {
    session.api = api;
    session.me = me;
    await pods.load();
  },
  onSignOut: signOut,
});

function signOut() {
  stopRefresh();
  session.api = null;
  session.me = null;
  pods.hide();
  $("live").hidden = true;
}

function selectPod(/** @type {string} */ podId) {
  session.podId = podId;
  savePod(podId);
  messages.reset();
  queues.reset();
  deadLetters.reset();
  startRefresh();
}

// ---- refresh loop (one request chain at a time, never overlapping)

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
  const { api, podId } = session;
  if (!api || !podId || refreshing) return;
  refreshing = true;
  try {
    // Dead letters are for pod admins; a member still sees messages and queues.
    const dead = api
      .deadLetters(podId)
      .catch((err) => (err instanceof ApiError && err.status === 403 ? null : Promise.reject(err)));
    const [list, queue, letters] = await Promise.all([api.messages(podId), api.queue(podId), dead]);
    if (podId !== session.podId) return; // the pod changed while we waited
    messages.render(list);
    session.offsetMs = clockOffset(queue.now, Date.now());
    session.agents = queue.agents;
    queues.render(queue.agents);
    inject.render(queue.agents);
    deadLetters.render(letters);
    $("live").classList.remove("stale");
  } catch (err) {
    $("live").classList.add("stale");
    if (err instanceof ApiError && err.status === 401) {
      forgetToken();
      signOut();
      login.show(`Signed out: ${err.message}`);
    }
  } finally {
    refreshing = false;
  }
}

// ---- start

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
