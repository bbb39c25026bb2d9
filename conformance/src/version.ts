/** The tool's version, read from its package.json (reports name the tool that produced them). */
import { readFileSync } from "node:fs";

export const toolVersion: string = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;
