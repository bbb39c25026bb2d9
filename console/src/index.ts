/**
 * `@commonly/cap-console`: the dev console's static files and the Fastify plugin that serves them (and the
 * docs site) from a kernel. The console itself is plain browser JavaScript under `public/`.
 */

export type { HomeOptions } from "./home.js";
export {
  type ConsoleAndDocsOptions,
  defaultConsoleDir,
  defaultDocsDir,
  registerConsoleAndDocs,
  resolveStaticFile,
} from "./serve.js";
