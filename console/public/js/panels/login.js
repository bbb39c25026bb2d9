// @ts-check
/**
 * The sign-in panel: paste a human token, check it with `GET /me`, keep it. A refused token is forgotten
 * and the panel says why. Signing out is the caller's (it also stops the refresh loop).
 */
import { ApiError, createApi } from "../api.js";
import { $, describeError } from "../dom.js";
import { forgetToken, saveToken } from "../session.js";

/**
 * @param {{
 *   onSignedIn: (api: ReturnType<typeof createApi>, me: {id: string, name?: string}) => Promise<void>,
 *   onSignOut: () => void,
 * }} hooks
 */
export function createLoginPanel({ onSignedIn, onSignOut }) {
  function show(/** @type {string} */ error = "") {
    $("login").hidden = false;
    $("app").hidden = true;
    $("sign-out").hidden = true;
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
        forgetToken();
        onSignOut();
        show(`The kernel refused this token: ${err.message}`);
        return;
      }
      onSignOut();
      show(describeError(err));
      return;
    }
    saveToken(token);
    $("login").hidden = true;
    $("app").hidden = false;
    $("sign-out").hidden = false;
    $("whoami").textContent = `signed in as ${me.name ?? me.id}`;
    await onSignedIn(api, me);
  }

  $("login-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const token = /** @type {HTMLInputElement} */ ($("token-input")).value.trim();
    if (token) void signIn(token);
  });
  $("sign-out").addEventListener("click", () => {
    forgetToken();
    onSignOut();
    show();
  });

  return { show, signIn };
}
