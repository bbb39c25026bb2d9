// The pack-and-install smoke on Node 22: the checks are release/smoke/pack-and-install-suite.mjs.
import { packAndInstall } from "../../smoke/pack-and-install-suite.mjs";

packAndInstall(22);
