// @ts-check
/** The header badge: a kernel run with a wire profile other than plain CAP (`--profile production`) says so. */
import { $ } from "../dom.js";

export async function showProfile() {
  try {
    const { profile } = await (await fetch(new URL("../readyz", location.href))).json();
    if (typeof profile !== "string") return;
    const el = $("profile");
    el.dataset.profile = profile;
    if (profile === "cap") return;
    el.textContent = `${profile} profile`;
    el.title = `Its CAP routes speak the ${profile} kernel's dialect (event names, answers) for deployed drivers.`;
    el.hidden = false;
  } catch {
    // A console served apart from its kernel has no /readyz beside it: no badge.
  }
}
