/**
 * The public surface of @commonly/cli as a library: the adapter contract, so a wrapped CLI can be
 * driven (and its failures classified) outside the `commonly` command. The run loop, local state
 * and terminal output are the command's business and stay unexported.
 */
export {
  AdapterError,
  type AdapterErrorKind,
  classifyFailure,
  isAdapterError,
} from "./adapters/adapter-error.js";
export { type CmdAdapterOptions, createCmdAdapter } from "./adapters/cmd.js";
export { ADAPTER_NAMES, type AdapterName, getAdapter } from "./adapters/registry.js";
export {
  type Adapter,
  DEFAULT_TIMEOUT_MS,
  type DetectOptions,
  type DetectResult,
  type SpawnContext,
  type SpawnResult,
} from "./adapters/types.js";
