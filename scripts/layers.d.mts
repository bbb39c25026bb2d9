/** Types for scripts/layers.mjs, so the packages' TypeScript tests can import it. */
export interface Layer {
  name: string;
  /** An anchored regular expression over paths relative to the package folder. */
  path: string;
}
export interface LayerOrder {
  /** Folders (relative to the package) whose modules are checked. */
  roots: string[];
  /** Top (may import everything below) to bottom. */
  layers: Layer[];
}
export const PACKAGES: Record<string, LayerOrder>;
export function layerRules(layers: Layer[]): { forbidden: object[] };
export function checkLayers(dir: string, order: LayerOrder): Promise<string[]>;
export function layerViolations(name: string): Promise<string[]>;
