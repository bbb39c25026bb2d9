/*
 * The docs pages' behaviour: a copy button on every code block, the dark-mode toggle (remembered in
 * localStorage, otherwise following the system) and the menu button that opens the navigation on narrow
 * screens. Loaded with `defer` on every page; must never fetch anything or write inline styles.
 */
(() => {
  const root = document.documentElement;
  const THEME_KEY = "cap-docs.theme";

  // ---- copy buttons: one per code block outside Swagger UI (which has its own)
  async function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return;
    }
    // Pages opened over plain http from another host have no async clipboard: the old selection route.
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "copy-scratch";
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    if (!ok) throw new Error("copy refused");
  }

  for (const pre of document.querySelectorAll("main pre")) {
    if (pre.closest("#swagger-ui") || pre.parentElement?.classList.contains("code-block")) continue;
    const wrap = document.createElement("div");
    wrap.className = "code-block";
    pre.replaceWith(wrap);
    const button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy this code");
    const status = document.createElement("span");
    status.className = "visually-hidden";
    status.setAttribute("aria-live", "polite");
    wrap.append(pre, button, status);
    let timer = 0;
    button.addEventListener("click", async () => {
      const text = (pre.querySelector("code") ?? pre).textContent.replace(/\n$/, "");
      let said;
      try {
        await copyText(text);
        said = "Copied";
      } catch {
        said = "Press Ctrl+C";
        const range = document.createRange();
        range.selectNodeContents(pre);
        getSelection()?.removeAllRanges();
        getSelection()?.addRange(range);
      }
      button.textContent = said;
      status.textContent = said;
      button.classList.toggle("done", said === "Copied");
      clearTimeout(timer);
      timer = setTimeout(() => {
        button.textContent = "Copy";
        status.textContent = "";
        button.classList.remove("done");
      }, 2000);
    });
  }

  // ---- dark mode toggle
  const toggle = document.querySelector(".theme-toggle");
  const media = window.matchMedia?.("(prefers-color-scheme: dark)");
  function show(theme) {
    root.dataset.theme = theme;
    const dark = theme === "dark";
    toggle?.setAttribute("aria-pressed", String(dark));
    toggle?.setAttribute("title", dark ? "Light mode" : "Dark mode");
  }
  if (toggle) {
    toggle.hidden = false;
    show(root.dataset.theme === "dark" ? "dark" : "light");
    toggle.addEventListener("click", () => {
      const next = root.dataset.theme === "dark" ? "light" : "dark";
      show(next);
      try {
        localStorage.setItem(THEME_KEY, next);
      } catch {
        // Not remembered, but switched for this page.
      }
    });
  }
  media?.addEventListener?.("change", (e) => {
    let stored = null;
    try {
      stored = localStorage.getItem(THEME_KEY);
    } catch {}
    if (!stored) show(e.matches ? "dark" : "light");
  });

  // ---- navigation on narrow screens
  const navButton = document.querySelector(".nav-toggle");
  const nav = document.getElementById("site-nav");
  if (navButton && nav) {
    navButton.hidden = false;
    navButton.addEventListener("click", () => {
      const open = navButton.getAttribute("aria-expanded") !== "true";
      navButton.setAttribute("aria-expanded", String(open));
      document.body.classList.toggle("nav-open", open);
    });
  }
})();
