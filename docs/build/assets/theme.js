/*
 * Runs in <head>, before the page paints, so a dark reader never sees a white flash: picks the theme the
 * reader chose on this site (localStorage) or else the system's (prefers-color-scheme), and marks the page
 * as scripted. Must never wait for anything: it is a blocking script on every page.
 */
(() => {
  const root = document.documentElement;
  let stored = null;
  try {
    stored = localStorage.getItem("cap-docs.theme");
  } catch {
    // Storage can be off (file:// in some browsers, privacy modes): the system theme still applies.
  }
  const system = window.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  root.dataset.theme = stored === "dark" || stored === "light" ? stored : system;
  root.classList.add("js");
})();
