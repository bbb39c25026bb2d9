/**
 * The site's pages and navigation, in one place. `src` pages are markdown files under docs/ (some written
 * by other roles: CAP.md by the spec lead, conformance.md by the conformance engineer, local-cli-driver.md by
 * the CLI engineer); `gen` pages are generated from data (OpenAPI, requirements, error registry, benchmarks).
 * Any other top-level docs/*.md is published too, under "More", so nobody's page silently disappears.
 *
 * `optional: true` sources may not exist yet; the page then says so instead of breaking the build.
 * `ifPresent: true` sources are left out of the site (and its navigation) until they exist.
 */
export const NAV = [
  {
    section: "Start",
    items: [
      { src: "index.md", href: "index.html", title: "Overview" },
      { src: "drivers.md", href: "drivers.html", title: "CAP for driver authors", ifPresent: true },
    ],
  },
  {
    section: "Protocol",
    items: [
      { src: "CAP.md", href: "cap.html", title: "CAP v1 specification", optional: true },
      { gen: "requirements", href: "requirements.html", title: "Requirements and checks" },
      { gen: "errors", href: "errors.html", title: "Error codes" },
      { src: "versioning.md", href: "versioning.html", title: "Versions and releases" },
    ],
  },
  {
    section: "Quickstarts",
    items: [
      {
        src: "quickstart/driver-typescript.md",
        href: "quickstart/driver-typescript.html",
        title: "Driver in TypeScript",
      },
      {
        src: "quickstart/driver-python.md",
        href: "quickstart/driver-python.html",
        title: "Driver in Python",
      },
      {
        src: "quickstart/driver-http.md",
        href: "quickstart/driver-http.html",
        title: "Driver in any language",
      },
      {
        src: "quickstart/driver-conformance.md",
        href: "quickstart/driver-conformance.html",
        title: "Test your driver",
      },
      { src: "quickstart/kernel.md", href: "quickstart/kernel.html", title: "Test your kernel" },
      { src: "quickstart/cli.md", href: "quickstart/cli.html", title: "Your CLI in a pod" },
    ],
  },
  {
    section: "API reference",
    items: [
      { gen: "openapi", api: "cap", href: "api/cap.html", title: "CAP v1 API" },
      { gen: "openapi", api: "admin", href: "api/admin.html", title: "Kernel admin API" },
      // Generated from the Python SDK's docstrings by `pnpm generate` (sdk-py/scripts/api_docs.py).
      { src: "../sdk-py/docs/api.md", href: "api/python.html", title: "Python SDK (cap_sdk)" },
    ],
  },
  {
    section: "Tools",
    items: [
      { src: "console.md", href: "console.html", title: "Dev console" },
      { src: "observability.md", href: "observability.html", title: "Observability" },
      { src: "security.md", href: "security.html", title: "Security model" },
      {
        src: "mocking-production.md",
        href: "mocking-production.html",
        title: "Mocking the production kernel",
      },
      { src: "conformance.md", href: "conformance.html", title: "Conformance suite", optional: true },
      {
        src: "local-cli-driver.md",
        href: "local-cli-driver.html",
        title: "Local CLI driver",
        optional: true,
      },
      { src: "benchmarks.md", gen: "benchmarks", href: "benchmarks.html", title: "Benchmarks" },
    ],
  },
];

/** Top-level docs/*.md that are not pages of their own. */
export const NOT_PAGES = new Set(["README.md"]);

/** The OpenAPI documents the reference pages render, relative to the repository root. */
export const APIS = {
  cap: {
    file: "spec/generated/cap-v1.openapi.yaml",
    title: "CAP v1 API reference",
    intro:
      "The six CAP routes and the optional conveniences, as generated from the TypeSpec. " +
      "This is what every conforming kernel serves and every driver calls.",
  },
  admin: {
    file: "spec/generated/kernel-admin.openapi.yaml",
    title: "Kernel admin API reference",
    intro:
      "The reference kernel's own surface beyond CAP — users, pods, human messages, the registry, " +
      "event injection, dead letters, queue views. Versioned separately from CAP; other kernels need not serve it.",
  },
};
