/**
 * Module resolution hooks for hide-packages.mjs: a bare specifier naming a hidden package (or a subpath of
 * it) fails exactly as a missing package does. Everything else resolves as usual.
 */
let hidden = [];

export function initialize(data) {
  hidden = data?.hidden ?? [];
}

export async function resolve(specifier, context, next) {
  const name = hidden.find((h) => specifier === h || specifier.startsWith(`${h}/`));
  if (name) {
    const from = context.parentURL ? new URL(context.parentURL).pathname : "the entry point";
    const err = new Error(`Cannot find package '${name}' imported from ${from}`);
    err.code = "ERR_MODULE_NOT_FOUND";
    throw err;
  }
  return next(specifier, context);
}
