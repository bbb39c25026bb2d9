// The requirements half of the breaking-change gate: compares the requirements manifest as released with
// the current one. No diff tool knows what a requirement id means, so these few rules are written here;
// each is one line of spec/README.md ("The breaking-change gate"). It must never edit either manifest, and
// never fail on an added requirement or a reworded sentence whose key word is unchanged (those are listed
// for the reviewer instead).

const STRENGTH = { MAY: 0, SHOULD: 1, MUST: 2 };
// The RFC 2119 key word of a sentence, with its NOT: "MUST NOT" and "MUST" are both level MUST, and turning
// one into the other reverses the requirement.
const keyWord = (text) =>
  /\b(MUST NOT|MUST|SHALL NOT|SHALL|SHOULD NOT|SHOULD|REQUIRED|RECOMMENDED|MAY|OPTIONAL)\b/.exec(text)?.[1];

/**
 * Compares two parsed manifests (`{requirements: [{id, level, subject, text, feature, ...}]}`). Returns
 * `breaking` (each with `id`, `what`) and `notices` (added ids and reworded sentences, for the record).
 */
export function compareRequirements(released, current) {
  const now = new Map((current.requirements ?? []).map((r) => [r.id, r]));
  const was = new Set();
  const breaking = [];
  const notices = [];
  for (const before of released.requirements ?? []) {
    was.add(before.id);
    const after = now.get(before.id);
    if (!after) {
      breaking.push({
        id: before.id,
        what: `removed (${before.level}, ${before.subject}): an id is retired only in a new major version`,
      });
      continue;
    }
    if (after.level !== before.level) {
      const weaker = STRENGTH[after.level] < STRENGTH[before.level];
      breaking.push({
        id: before.id,
        what: weaker
          ? `weakened from ${before.level} to ${after.level}: what the other side relies on would no longer be promised`
          : `strengthened from ${before.level} to ${after.level}: a conforming 1.0.0 implementation may no longer conform (a new obligation takes a new id)`,
      });
    }
    if (after.subject !== before.subject)
      breaking.push({
        id: before.id,
        what: `now binds the ${after.subject}, not the ${before.subject}`,
      });
    if ((after.feature ?? null) !== (before.feature ?? null))
      breaking.push({
        id: before.id,
        what: `now applies ${after.feature ? `only with feature ${after.feature}` : "to every kernel"}, not ${before.feature ? `only with feature ${before.feature}` : "to every kernel"}`,
      });
    if (after.text !== before.text) {
      const [k0, k1] = [keyWord(before.text), keyWord(after.text)];
      // A level change is reported above; this catches MUST → MUST NOT (same level, the opposite duty).
      if (k0 !== k1 && after.level === before.level)
        breaking.push({ id: before.id, what: `key word changed from ${k0} to ${k1}` });
      else if (k0 === k1)
        notices.push({
          id: before.id,
          what: `reworded, key word ${k1} unchanged: a reviewer checks its meaning did not change`,
        });
    }
  }
  for (const id of now.keys()) if (!was.has(id)) notices.push({ id, what: `added (${now.get(id).level})` });
  return { breaking, notices };
}
