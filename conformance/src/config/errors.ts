/** A problem with the configuration (flags, environment, fixture, baseline): exit code 2, never a kernel failure. */
export class ConfigError extends Error {
  override name = "ConfigError";
}
