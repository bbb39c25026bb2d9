// The pack-and-install smoke on Node 20: the checks are release/smoke/pack-and-install-suite.mjs.
import { packAndInstall } from "../../smoke/pack-and-install-suite.mjs";

packAndInstall(20);
