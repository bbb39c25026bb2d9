/**
 * The kernel's optional peer dependencies (`pg` for a postgres:// store, `openapi-fetch` for the testing
 * kit) are loaded where they are needed; this tells "that package is not installed" apart from every other
 * failure, so the caller can name what to install.
 * Must never: match a missing file or dependency inside an installed package — only the package itself.
 */
export function isMissingPackage(err: unknown, name: string): boolean {
  const e = err as { code?: string; message?: string };
  const message = e?.message ?? "";
  // import(): "Cannot find package 'pg' imported from /…/index.js" (Node 20, 22 and 24 word it alike).
  if (e?.code === "ERR_MODULE_NOT_FOUND") return message.includes(`Cannot find package '${name}'`);
  // require(): "Cannot find module 'pg'" then the require stack; a file inside a package is a path.
  if (e?.code === "MODULE_NOT_FOUND") return message.startsWith(`Cannot find module '${name}'`);
  return false;
}
