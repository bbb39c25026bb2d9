// @ts-check
/**
 * The pod picker in the header: the signed-in person's pods, the one named in `?pod=` or remembered
 * from last time (else the first) chosen at sign-in.
 */
import { $, h, toast } from "../dom.js";
import { savedPod } from "../session.js";

const picker = () => /** @type {HTMLElement} */ (document.querySelector(".pod-picker"));

/** @param {{ session: import("../session.js").Session, onSelect: (podId: string) => void }} ctx */
export function createPodPicker({ session, onSelect }) {
  const select = /** @type {HTMLSelectElement} */ ($("pod-select"));
  select.addEventListener("change", () => onSelect(select.value));

  return {
    async load() {
      if (!session.api) return;
      const pods = await session.api.pods();
      select.replaceChildren(
        ...pods.map((/** @type {any} */ p) => h("option", { value: p.id }, `${p.name} (${p.id})`)),
      );
      picker().hidden = false;
      if (!pods.length) {
        toast("This user is not a member of any pod yet.", "error");
        return;
      }
      const wanted = new URLSearchParams(location.search).get("pod") ?? savedPod();
      const pick = pods.find((/** @type {any} */ p) => p.id === wanted) ?? pods[0];
      select.value = pick.id;
      onSelect(pick.id);
    },
    /** Chooses a pod of the list (a trace link names its pod); false when the person has no such pod. */
    choose(/** @type {string} */ podId) {
      if (![...select.options].some((o) => o.value === podId)) return false;
      select.value = podId;
      onSelect(podId);
      return true;
    },
    hide() {
      picker().hidden = true;
    },
  };
}
