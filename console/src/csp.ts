/**
 * The Content-Security-Policies of what the console package serves. The console keeps the human's API token
 * in localStorage on the kernel's origin, so nothing but this origin's own files may run: no inline script,
 * no eval, no framing, nothing fetched from elsewhere.
 */
/** Directives both folders share: this origin's own files only, never framed, no plugins, no <base>. */
export const SAME_ORIGIN_ONLY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
];

/** The console's policy: its own code, talking to this kernel only. */
export const CONSOLE_CSP = SAME_ORIGIN_ONLY.join("; ");
/** The docs' policy: the same (Swagger UI's "Try it out" calls this origin, which connect-src allows). */
export const DOCS_CSP = SAME_ORIGIN_ONLY.join("; ");
