/**
 * The optional capabilities a kernel advertises in `/info` `features` (`info` is `/info` itself): the
 * spec's enum Feature, declared once in TypeSpec. A tiny module at the bottom of the layer order, so
 * settings, the manifest and the runners can name features without importing what a check is.
 */
import { FEATURES } from "@commonly/cap-spec/constants";

export const features = FEATURES;
export type Feature = (typeof features)[number];
