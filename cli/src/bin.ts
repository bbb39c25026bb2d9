#!/usr/bin/env node
/** The `commonly` executable: everything happens in cli/program.ts; this file only sets the exit status. */
import { main } from "./cli/program.js";

process.exitCode = await main();
