#!/usr/bin/env node
/** The `cap-conformance` executable. All logic lives in cli.ts; this only hands over argv and the exit code. */
import { main } from "./cli.js";

process.exitCode = await main(process.argv.slice(2));
