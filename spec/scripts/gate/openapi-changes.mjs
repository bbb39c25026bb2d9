// The OpenAPI half of the breaking-change gate: which changes between a released document and the current
// one would break someone who built against the released one. api-smart-diff finds and classifies the
// changes (it reads OpenAPI 3.1 with JSON Schema 2020-12 rules and knows request from response); this
// module only decides whom each classification protects and adds the few rules CAP states that the tool
// does not know (see spec/README.md, "The breaking-change gate"). It must never edit either document
// and never call a change additive that the tool calls breaking.
import { allBreaking, apiCompare, isResponseSchema, openApiSchemaRules, openapi3Rules } from "api-smart-diff";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
// Unreferenced component schemas are compared through a synthetic path under this prefix (see below).
const SYNTHETIC = "/x-cap-gate/components/";

/**
 * How a surface is compared.
 * - `twoSided`: independent implementations sit on both ends (CAP: many kernels, many drivers), so a
 *   change must keep 1.0.0 drivers working against a new kernel AND keep 1.0.0 kernels conformant. The
 *   tool's rules protect the reader of a message (a request is read by the kernel, a response by the
 *   driver); the kernel view runs the same rules with request and response swapped, which protects the
 *   writer. Without it, a new required response field or a relaxed request limit would pass.
 * - `openSets`: enum schemas (`Name`, or `Name.property` for an enum inline in a model) whose values are
 *   an open set by the spec's own word: values may be added, never removed.
 * - `featureValues`: values added to a request-only enum that a driver may send only to a kernel that
 *   advertises the named feature, so a 1.0.0 kernel (which advertises none of them) never receives one.
 *   Each must name a feature of the current `Feature` enum, and its schema must not reach any response
 *   (where a new value would break drivers); otherwise the addition is breaking as the tool says.
 */
export const CAP_POLICY = {
  twoSided: true,
  openSets: {
    Feature:
      "Info.features is string[] and clients ignore feature names they do not know; new optional features are additive (docs/CAP.md, Versioning)",
  },
  featureValues: {
    AckOutcome: {
      cancelled: {
        feature: "cancel",
        reason: "a driver acks with `cancelled` only a delivery a kernel advertising `cancel` cancelled",
      },
    },
  },
};

/** The admin surface has one server (the reference kernel) and its clients: only they are protected. */
export const ADMIN_POLICY = {
  twoSided: false,
  openSets: {
    "QueuedEvent.state":
      "an event's states grow with CAP's optional features (feature `cancel` added `cancelled`); the console and the CLI show a state they do not know as written (spec/README.md, the breaking-change gate)",
  },
  featureValues: {},
};

// The schema object holding an open set's `enum`: `Name` or `Name.property`.
function openSetSchema(doc, key) {
  const [name, property] = key.split(".");
  const schema = doc.components?.schemas?.[name];
  return property ? schema?.properties?.[property] : schema;
}

function refsIn(node, out) {
  if (Array.isArray(node)) for (const v of node) refsIn(v, out);
  else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string") out.add(v);
      else refsIn(v, out);
    }
  }
  return out;
}

// Component schemas no operation reaches, directly or through other schemas.
function unreferencedSchemas(doc) {
  const schemas = doc.components?.schemas ?? {};
  const seen = new Set();
  const queue = [...refsIn(doc.paths ?? {}, new Set())];
  while (queue.length) {
    const ref = queue.pop();
    const name = ref.startsWith("#/components/schemas/") ? ref.slice("#/components/schemas/".length) : null;
    if (!name || seen.has(name) || !(name in schemas)) continue;
    seen.add(name);
    queue.push(...refsIn(schemas[name], new Set()));
  }
  return Object.keys(schemas).filter((n) => !seen.has(n));
}

// Component schemas some operation's responses reach, directly or through other schemas.
function responseSchemas(doc) {
  const schemas = doc.components?.schemas ?? {};
  const seen = new Set();
  const queue = [];
  for (const item of Object.values(doc.paths ?? {}))
    for (const method of METHODS)
      if (item?.[method]) queue.push(...refsIn(item[method].responses ?? {}, new Set()));
  while (queue.length) {
    const ref = queue.pop();
    const name = ref.startsWith("#/components/schemas/") ? ref.slice("#/components/schemas/".length) : null;
    if (!name || seen.has(name) || !(name in schemas)) continue;
    seen.add(name);
    queue.push(...refsIn(schemas[name], new Set()));
  }
  return seen;
}

/**
 * The values of `policy.featureValues` the current document adds over the released one, each judged:
 * `ok` when it may be hidden from the tool (a request-only schema, a feature the document names), else
 * `why` it may not.
 */
function gatedValues(released, current, policy) {
  const out = [];
  const features = new Set(current.components?.schemas?.Feature?.enum ?? []);
  const reached = responseSchemas(current);
  for (const [name, values] of Object.entries(policy.featureValues ?? {})) {
    const was = released.components?.schemas?.[name]?.enum ?? [];
    const now = current.components?.schemas?.[name]?.enum ?? [];
    for (const [value, { feature, reason }] of Object.entries(values)) {
      if (was.includes(value) || !now.includes(value)) continue;
      let why = null;
      if (!features.has(feature)) why = `feature ${JSON.stringify(feature)} is not in Feature`;
      else if (reached.has(name))
        why = `schema ${name} reaches a response, where drivers would see the value`;
      out.push({ name, value, feature, reason, why });
    }
  }
  return out;
}

/**
 * The document as compared. The tool compares what operations reach, with direction; a schema nothing
 * references (CAP's event payloads and its Feature registry) would only be compared without direction.
 * So each such schema, in either document, is given a synthetic `GET` whose 200 answer is that schema:
 * payloads are sent by kernels and read by drivers, which is what a response is. Open sets lose their
 * `enum` here; their values are checked apart (removed values only).
 */
function prepare(doc, names, policy, hidden = []) {
  const out = structuredClone(doc);
  for (const { name, value, why } of hidden) {
    const schema = out.components?.schemas?.[name];
    if (!why && Array.isArray(schema?.enum)) schema.enum = schema.enum.filter((v) => v !== value);
  }
  out.paths ??= {};
  for (const name of names) {
    if (!out.components?.schemas?.[name]) continue;
    out.paths[`${SYNTHETIC}${name}`] = {
      get: {
        operationId: `x-cap-gate-${name}`,
        responses: {
          200: {
            description: "synthetic",
            content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } },
          },
        },
      },
    };
  }
  for (const name of Object.keys(policy.openSets)) {
    const schema = openSetSchema(out, name);
    if (schema && Array.isArray(schema.enum)) delete schema.enum;
  }
  return out;
}

// The tool's rules with request and response schemas swapped: the kernel's view of the same change.
function kernelViewRules() {
  const rules = openapi3Rules();
  const requestSide = openApiSchemaRules();
  const responseSide = openApiSchemaRules({ response: true });
  const operation = rules["/paths"]["/*"]["/*"];
  // Request bodies and responses share one `content` rule object in the tool; choose by path.
  operation["/requestBody"]["/content"]["/*"]["/schema"] = ({ path }) => ({
    ...(isResponseSchema(path) ? requestSide : responseSide),
    $: allBreaking,
  });
  // Operation and path-level parameters share one parameter rule object too.
  operation["/parameters"]["/*"]["/schema"] = () => ({ ...responseSide, $: allBreaking });
  return rules;
}

const pointer = (path) => path.map((p) => String(p).replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

// Where a change is, for people: the operation and the place in it (a synthetic path is named as its schema).
function where(path) {
  if (path[0] !== "paths") return path.join(".");
  const route = String(path[1]);
  if (route.startsWith(SYNTHETIC)) {
    const inner = path
      .slice(3)
      .join(".")
      .replace(/^responses\.200\.content\.application\/json\.schema\.?/, "");
    return `schema ${route.slice(SYNTHETIC.length)}${inner ? `.${inner}` : ""}`;
  }
  const method = METHODS.includes(String(path[2])) ? String(path[2]).toUpperCase() : "";
  return [method, route, path.slice(method ? 3 : 2).join(".")].filter(Boolean).join(" ");
}

// Inside a schema's `examples` (or `example`): documentation, which the README's table calls additive.
const inExample = (path) =>
  path.some((p, i) => (p === "examples" || p === "example") && path[i - 1] !== "properties");

/**
 * CAP's own rules, on top of the tool: (1) an operationId is a name clients and generated SDKs call, so
 * changing it is renaming the operation; (2) removing a documented property is breaking even where it was
 * optional ("removing or changing the meaning of anything on this page is breaking", docs/CAP.md); (3)
 * the tool's "unclassified" is treated as breaking until a rule here says otherwise (fail closed), except
 * inside examples, which document and bind no one.
 */
function capRule(diff) {
  const last = diff.path[diff.path.length - 1];
  if (last === "operationId" && diff.action !== "add")
    return `operation renamed: operationId ${JSON.stringify(diff.before)} is now ${JSON.stringify(diff.after)}`;
  if (diff.action === "remove" && diff.path[diff.path.length - 2] === "properties")
    return `property ${JSON.stringify(last)} removed`;
  if (diff.type === "unclassified" && !inExample(diff.path))
    return "a change the diff tool does not classify (treated as breaking)";
  return null;
}

/**
 * Compares `released` with `current` (parsed OpenAPI documents). Returns `breaking` (each with `where`,
 * `what`, `why` and the JSON pointer `at`) and `additive` (every other change, for the record).
 */
export function compareOpenApi(released, current, policy = CAP_POLICY) {
  const names = [...new Set([...unreferencedSchemas(released), ...unreferencedSchemas(current)])];
  const gated = gatedValues(released, current, policy);
  const before = prepare(released, names, policy);
  const after = prepare(current, names, policy, gated);
  const views = [["breaks clients built against the released document (drivers)", undefined]];
  if (policy.twoSided)
    views.push(["breaks implementations of the released document (kernels)", kernelViewRules()]);

  const breaking = new Map();
  const additive = new Map();
  for (const [why, rules] of views) {
    const { diffs } = apiCompare(before, after, rules ? { rules } : {});
    for (const diff of diffs) {
      // Schemas are compared where operations (or the synthetic paths) reach them, with direction;
      // the same change seen again under components.schemas, without direction, is left out.
      if (diff.path[0] === "components" && diff.path[1] === "schemas") continue;
      const at = pointer(diff.path);
      const key = `${diff.action} ${at}`;
      const rule = capRule(diff);
      // The tool's sentence when it wrote one ("[Removed] Response 404"), else the action and the place.
      const what = /^\[\w+\] \S/.test(diff.description ?? "")
        ? diff.description
        : `${diff.action} ${where(diff.path)}`;
      if (diff.type === "breaking" || rule) {
        if (!breaking.has(key))
          breaking.set(key, {
            where: where(diff.path),
            what: rule ?? what,
            why: rule ? "CAP rule" : why,
            at,
          });
        additive.delete(key);
      } else if (!breaking.has(key) && !additive.has(key)) {
        additive.set(key, { where: where(diff.path), what, type: diff.type, at });
      }
    }
  }
  for (const [name, reason] of Object.entries(policy.openSets)) {
    const was = openSetSchema(released, name)?.enum ?? [];
    const now = new Set(openSetSchema(current, name)?.enum ?? []);
    for (const value of now)
      if (!was.includes(value))
        additive.set(`add open-set ${name} ${value}`, {
          where: `schema ${name}`,
          what: `open-set value ${JSON.stringify(value)} added`,
          type: "non-breaking",
          at: `components/schemas/${name.replace(".", "/properties/")}/enum`,
        });
    for (const value of was) {
      if (now.has(value)) continue;
      const at = `components/schemas/${name.replace(".", "/properties/")}/enum`;
      breaking.set(`remove ${at} ${value}`, {
        where: `schema ${name}`,
        what: `open-set value ${JSON.stringify(value)} removed (values may only be added: ${reason})`,
        why: "CAP rule",
        at,
      });
    }
  }
  for (const { name, value, feature, reason, why } of gated) {
    if (why) continue; // not hidden from the tool, which judged it above
    additive.set(`add feature-value ${name} ${value}`, {
      where: `schema ${name}`,
      what: `value ${JSON.stringify(value)} added behind feature ${JSON.stringify(feature)} (${reason})`,
      type: "non-breaking",
      at: `components/schemas/${name}/enum`,
    });
  }
  return { breaking: [...breaking.values()], additive: [...additive.values()] };
}
