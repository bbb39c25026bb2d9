// @ts-check
/**
 * Page helpers every panel shares: find an element, build one, show a toast, say what an error was.
 * Everything from the kernel goes into the page as text (string children become text nodes), never HTML.
 */
import { ApiError } from "./api.js";

/** @param {string} id */
export const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * Builds an element; string children become text nodes.
 * @param {string} tag @param {Record<string, string | boolean | ((e: Event) => void)>} [attrs] @param {(Node | string | null | undefined)[]} children
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v);
    else if (v === true) el.setAttribute(k, "");
    else if (v !== false) el.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) el.append(c);
  return el;
}

export function toast(/** @type {string} */ text, kind = "info") {
  const el = $("toast");
  el.textContent = text;
  el.className = `toast ${kind}`;
  el.hidden = false;
  clearTimeout(/** @type {any} */ (el).hideTimer);
  /** @type {any} */ (el).hideTimer = setTimeout(() => {
    el.hidden = true;
  }, 4000);
}

export function describeError(/** @type {unknown} */ err) {
  return err instanceof ApiError ? `${err.message} (${err.code})` : String(err);
}
