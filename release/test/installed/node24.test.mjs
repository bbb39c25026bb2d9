// The pack-and-install smoke on Node 24: the checks are release/smoke/pack-and-install-suite.mjs.
import { packAndInstall } from "../../smoke/pack-and-install-suite.mjs";

packAndInstall(24);
