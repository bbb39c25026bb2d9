/**
 * The requirements page: every requirement of `spec/requirements.yaml`, each linked to the conformance
 * checks that verify it (from `cap-conformance list --json`) and to the place in CAP.md that states it;
 * then every check, linked back to its requirements.
 *
 * Must never: invent a link — a requirement without a check says "no check", a check citing an id the
 * manifest lacks is reported as such.
 */
import { escapeHtml } from "./layout.mjs";

/** Normalises the manifest to `[{id, level, text, section, blackBox, capability}]`. */
export function normalizeRequirements(manifest) {
  const list = Array.isArray(manifest) ? manifest : (manifest?.requirements ?? []);
  return list.map((r) => ({
    id: String(r.id),
    level: String(r.level ?? "").toUpperCase(),
    text: r.text ?? r.statement ?? r.sentence ?? "",
    section: r.section ?? "",
    subject: r.subject ?? null,
    blackBox: r.blackBox ?? r.testable ?? r.black_box ?? null,
    capability: r.capability ?? r.feature ?? null,
  }));
}

/** Normalises checks to `[{id, title, level, family, verifies: string[]}]`. */
export function normalizeChecks(list) {
  const checks = Array.isArray(list) ? list : (list?.checks ?? []);
  return checks.map((c) => ({
    id: String(c.id ?? c.name),
    title: c.title ?? c.description ?? c.name ?? "",
    level: String(c.level ?? "").toUpperCase(),
    family: c.family ?? c.group ?? String(c.id ?? c.name).split(/[./:]/)[0],
    verifies: [...(c.verifies ?? c.requirements ?? [])].map(String),
    capability: c.capability ?? c.feature ?? null,
  }));
}

/** Escapes text and turns `backticks` into <code>. */
export function inlineCode(text) {
  return escapeHtml(text).replace(/`([^`]+)`/g, "<code>$1</code>");
}

export function anchorOf(prefix, id) {
  return `${prefix}-${id.replace(/[^A-Za-z0-9_-]/g, "-")}`;
}

/**
 * @param {{requirements: ReturnType<typeof normalizeRequirements>, checks: ReturnType<typeof normalizeChecks> | null,
 *   capAnchors: Set<string>, checksSource: string}} input
 */
export function renderRequirementsPage({ requirements, checks, capAnchors, checksSource }) {
  const byReq = new Map(requirements.map((r) => [r.id, []]));
  const unknown = [];
  for (const c of checks ?? []) {
    for (const id of c.verifies) {
      if (byReq.has(id)) byReq.get(id).push(c);
      else unknown.push({ check: c.id, id });
    }
  }
  const levels = {};
  for (const r of requirements) levels[r.level] = (levels[r.level] ?? 0) + 1;
  const covered = requirements.filter((r) => byReq.get(r.id).length > 0).length;

  const rows = requirements
    .map((r) => {
      const cs = byReq.get(r.id);
      const checkLinks = !checks
        ? '<span class="muted">checks not listed</span>'
        : cs.length
          ? cs
              .map((c) => `<a href="#${anchorOf("check", c.id)}"><code>${escapeHtml(c.id)}</code></a>`)
              .join("<br>")
          : `<span class="nocheck">${r.blackBox === false ? "not black-box testable" : "no check"}</span>`;
      const spec = capAnchors.has(r.id)
        ? `<a href="cap.html#${escapeHtml(r.id)}">${escapeHtml(r.section || "CAP.md")}</a>`
        : escapeHtml(r.section);
      const cap = r.capability ? ` <span class="tag">${escapeHtml(r.capability)}</span>` : "";
      return `<tr id="${anchorOf("req", r.id)}"><td><code>${escapeHtml(r.id)}</code></td><td><span class="level l-${r.level.toLowerCase()}">${escapeHtml(r.level)}</span>${cap}</td><td>${inlineCode(r.text)}</td><td>${spec}</td><td>${checkLinks}</td></tr>`;
    })
    .join("\n");

  const checkRows = (checks ?? [])
    .map((c) => {
      const reqs = c.verifies
        .map((id) =>
          byReq.has(id)
            ? `<a href="#${anchorOf("req", id)}"><code>${escapeHtml(id)}</code></a>`
            : `<code class="unknown">${escapeHtml(id)}</code>`,
        )
        .join(" ");
      return `<tr id="${anchorOf("check", c.id)}"><td><code>${escapeHtml(c.id)}</code></td><td>${escapeHtml(c.family)}</td><td>${inlineCode(c.title)}</td><td>${escapeHtml(c.level)}</td><td>${reqs}</td></tr>`;
    })
    .join("\n");

  const summary = Object.entries(levels)
    .map(([l, n]) => `${n} ${escapeHtml(l)}`)
    .join(", ");
  const unknownNote = unknown.length
    ? `<p class="notice">Checks citing ids the manifest does not have: ${unknown.map((u) => `<code>${escapeHtml(u.check)}</code> → <code>${escapeHtml(u.id)}</code>`).join(", ")}.</p>`
    : "";
  const checksNote = checks
    ? `<p>${checks.length} checks, listed by <code>${escapeHtml(checksSource)}</code>; ${covered} of ${requirements.length} requirements are verified by at least one.</p>`
    : `<p class="notice">The conformance checks could not be listed at build time (${escapeHtml(checksSource)}).</p>`;
  return `<h1 id="requirements">Requirements and checks</h1>
<p>Every normative statement of <a href="cap.html">CAP v1</a> has an id, a level and the conformance checks that verify it. A kernel conforms when <code>cap-conformance</code> passes every MUST against it (<a href="quickstart/kernel.html">how to run it</a>).</p>
<p>${requirements.length} requirements (${summary}), from <code>spec/requirements.yaml</code>.</p>
${checksNote}
${unknownNote}
<h2 id="requirement-list">Requirements</h2>
<div class="table-wrap"><table class="reqs"><thead><tr><th>Id</th><th>Level</th><th>Requirement</th><th>Section</th><th>Verified by</th></tr></thead>
<tbody>
${rows}
</tbody></table></div>
<h2 id="check-list">Checks</h2>
<div class="table-wrap"><table class="checks"><thead><tr><th>Check</th><th>Family</th><th>What it does</th><th>Level</th><th>Verifies</th></tr></thead>
<tbody>
${checkRows}
</tbody></table></div>`;
}
