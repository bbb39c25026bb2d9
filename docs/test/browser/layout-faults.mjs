/**
 * What makes a docs page hard to read on a given screen, measured in the open page: the page wider than the
 * window (sideways scrolling), a code block that scrolls sideways, a table that is not inside its own
 * scrolling box. Used by site.test.mjs (1280 px) and site-features.test.mjs (400 and 1440 px).
 */

/** @param {import("playwright-core").Page} page @returns {Promise<string[]>} */
export function layoutFaults(page) {
  return page.evaluate(() => {
    const faults = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > innerWidth) faults.push(`page is ${doc.scrollWidth} px wide in ${innerWidth}`);
    for (const pre of document.querySelectorAll("main pre")) {
      if (pre.closest("#swagger-ui")) continue;
      if (pre.scrollWidth > pre.clientWidth + 1)
        faults.push(`code block scrolls: ${pre.textContent.slice(0, 60)}`);
    }
    for (const table of document.querySelectorAll("main table")) {
      if (table.closest("#swagger-ui, details")) continue;
      if (!table.parentElement.classList.contains("table-wrap"))
        faults.push(`table outside a scrolling box: ${table.textContent.slice(0, 60)}`);
    }
    return faults;
  });
}
