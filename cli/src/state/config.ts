/**
 * `config.json`: the kernels the user logged in to (`commonly login`), each with its URL and the
 * human token used for registry calls, and which one is the default. Saved 0600: it holds tokens.
 */
import { readJson, writeJsonAtomic } from "./atomic-file.js";
import { configPath } from "./home.js";

export interface InstanceConfig {
  url: string;
  token: string;
}

export interface CliConfig {
  instances: Record<string, InstanceConfig>;
  defaultInstance?: string;
}

export interface ResolvedInstance extends InstanceConfig {
  name: string;
}

export async function loadConfig(home: string): Promise<CliConfig> {
  const raw = await readJson<Partial<CliConfig>>(configPath(home), {});
  const instances = typeof raw.instances === "object" && raw.instances !== null ? raw.instances : {};
  return typeof raw.defaultInstance === "string"
    ? { instances, defaultInstance: raw.defaultInstance }
    : { instances };
}

export async function saveConfig(home: string, config: CliConfig): Promise<void> {
  await writeJsonAtomic(configPath(home), config);
}

/** Adds or replaces one instance; the first instance saved becomes the default. */
export async function setInstance(
  home: string,
  name: string,
  instance: InstanceConfig,
  { makeDefault = false }: { makeDefault?: boolean } = {},
): Promise<CliConfig> {
  const config = await loadConfig(home);
  config.instances[name] = { url: normalizeUrl(instance.url), token: instance.token };
  if (makeDefault || config.defaultInstance === undefined) config.defaultInstance = name;
  await saveConfig(home, config);
  return config;
}

function normalizeUrl(url: string): string {
  return url.trim().replace(/\/+$/, "");
}

/**
 * The instance `ref` names: a saved name, or a URL matching a saved instance's URL (both forms
 * must work — production once resolved only one of them). No `ref`: the default instance.
 */
export function resolveInstance(config: CliConfig, ref?: string): ResolvedInstance | null {
  const key = ref ?? config.defaultInstance;
  if (key === undefined) return null;
  const byName = config.instances[key];
  if (byName) return { name: key, ...byName };
  const url = normalizeUrl(key);
  for (const [name, inst] of Object.entries(config.instances)) {
    if (normalizeUrl(inst.url) === url) return { name, ...inst };
  }
  return null;
}
