/*
 * Site search over assets/search-index.js (written by build/search-index.mjs): every section of every page,
 * loaded as a script on first use so it works from a file system and under a script-src 'self' policy
 * (a fetch()ed or WebAssembly index would need neither). Every term must match; title and heading hits
 * rank first. Keys: "/" focuses the box, arrows move, Enter opens, Escape closes. Must never fetch from
 * another origin or write inline styles.
 */
(() => {
  const box = document.querySelector(".search");
  const input = document.getElementById("site-search");
  const list = document.getElementById("search-results");
  const self = document.currentScript;
  if (!box || !input || !list || !self) return;
  // The site's root, from this script's own URL (…/assets/search.js), so results link right at any depth.
  const siteRoot = self.src.replace(/assets\/search\.js(\?.*)?$/, "");
  box.hidden = false;

  let index = null;
  let loading = null;
  function load() {
    if (index) return Promise.resolve(index);
    if (!loading) {
      loading = new Promise((resolve, reject) => {
        const s = document.createElement("script");
        s.src = `${siteRoot}assets/search-index.js`;
        s.onload = () => {
          const raw = window.CAP_SEARCH_INDEX;
          if (!raw) return reject(new Error("search index is empty"));
          index = raw.entries.map(([page, heading, id, text]) => {
            const p = raw.pages[page];
            return {
              href: p[0] + (id ? `#${id}` : ""),
              page: p[1],
              heading,
              text,
              hay: `${p[1]} ${heading} ${text}`.toLowerCase(),
              head: `${p[1]} ${heading}`.toLowerCase(),
            };
          });
          resolve(index);
        };
        s.onerror = () => reject(new Error("could not load the search index"));
        document.head.append(s);
      });
    }
    return loading;
  }

  function search(entries, query) {
    const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
    if (!terms.length) return [];
    const hits = [];
    for (const e of entries) {
      let score = 0;
      for (const t of terms) {
        const at = e.hay.indexOf(t);
        if (at < 0) {
          score = -1;
          break;
        }
        score += e.head.includes(t) ? 10 : 1;
      }
      if (score > 0) hits.push({ e, score });
    }
    return hits.sort((a, b) => b.score - a.score).slice(0, 12);
  }

  function snippet(text, term) {
    const at = text.toLowerCase().indexOf(term);
    const from = Math.max(0, at - 40);
    return (from > 0 ? "…" : "") + text.slice(from, from + 140) + (text.length > from + 140 ? "…" : "");
  }

  let active = -1;
  function setActive(i) {
    const items = [...list.querySelectorAll("a")];
    if (!items.length) return;
    active = (i + items.length) % items.length;
    for (const [n, a] of items.entries()) a.setAttribute("aria-selected", String(n === active));
    items[active].scrollIntoView({ block: "nearest" });
  }

  function close() {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    active = -1;
  }

  async function run() {
    const query = input.value.trim();
    if (!query) return close();
    let entries;
    try {
      entries = await load();
    } catch (err) {
      list.replaceChildren(Object.assign(document.createElement("p"), { textContent: err.message }));
      list.hidden = false;
      return;
    }
    if (input.value.trim() !== query) return;
    const first = query.toLowerCase().split(/\s+/)[0];
    const hits = search(entries, query);
    const items = hits.map(({ e }) => {
      const a = document.createElement("a");
      a.href = siteRoot + e.href;
      a.setAttribute("role", "option");
      const title = document.createElement("strong");
      title.className = "hit-title";
      title.textContent = e.heading && e.heading !== e.page ? `${e.page} › ${e.heading}` : e.page;
      const text = document.createElement("span");
      text.className = "hit-text";
      text.textContent = snippet(e.text, first);
      a.append(title, text);
      return a;
    });
    if (!items.length)
      items.push(Object.assign(document.createElement("p"), { textContent: `Nothing matches “${query}”.` }));
    list.replaceChildren(...items);
    list.hidden = false;
    input.setAttribute("aria-expanded", "true");
    active = -1;
  }

  input.addEventListener("input", run);
  input.addEventListener("focus", () => {
    load().catch(() => {});
    if (input.value.trim()) run();
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      setActive(active + (e.key === "ArrowDown" ? 1 : -1));
    } else if (e.key === "Enter") {
      const target = list.querySelectorAll("a")[Math.max(active, 0)];
      if (target && !list.hidden) {
        e.preventDefault();
        location.href = target.href;
      }
    } else if (e.key === "Escape") {
      close();
      input.blur();
    }
  });
  document.addEventListener("keydown", (e) => {
    const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement?.tagName ?? "");
    if (e.key === "/" && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      input.focus();
    }
  });
  document.addEventListener("click", (e) => {
    if (!box.contains(e.target)) close();
  });
})();
