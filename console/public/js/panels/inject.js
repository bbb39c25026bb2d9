// @ts-check
/**
 * The inject panel: pick one of the pod's agents and an event type (the documented ones are offered, with
 * a payload template each), and inject the event through the admin API.
 */
import { $, describeError, h, toast } from "../dom.js";
import { agentKey, DOCUMENTED_TYPES, parsePayload, payloadTemplate } from "../model.js";

/** @param {import("../session.js").PanelContext} ctx */
export function createInjectPanel({ session, refresh }) {
  const agentSelect = /** @type {HTMLSelectElement} */ ($("inject-agent"));
  const typeInput = /** @type {HTMLInputElement} */ ($("inject-type"));
  const payloadInput = /** @type {HTMLTextAreaElement} */ ($("inject-payload"));

  function fillPayloadTemplate() {
    const template = payloadTemplate(typeInput.value.trim(), { podId: session.podId ?? "", now: new Date() });
    payloadInput.value = JSON.stringify(template, null, 2);
  }

  async function inject(/** @type {SubmitEvent} */ ev) {
    ev.preventDefault();
    if (!session.api || !session.podId) return;
    const agent = session.agents.find((a) => agentKey(a) === agentSelect.value);
    const type = typeInput.value.trim();
    const payload = parsePayload(payloadInput.value);
    if (!agent) return toast("Pick an agent.", "error");
    if (payload instanceof Error) return toast(payload.message, "error");
    try {
      const created = await session.api.injectEvent({
        podId: session.podId,
        agentName: agent.agentName,
        instanceId: agent.instanceId,
        type,
        payload,
      });
      toast(`Injected ${type} ${created?.id ?? ""} for ${agent.agentName}`);
      await refresh();
    } catch (err) {
      toast(`Inject failed: ${describeError(err)}`, "error");
    }
  }

  $("event-types").replaceChildren(...DOCUMENTED_TYPES.map((t) => h("option", { value: t })));
  fillPayloadTemplate();
  typeInput.addEventListener("change", fillPayloadTemplate);
  $("inject-form").addEventListener("submit", inject);

  return {
    /** The agent list follows the pod's installed agents, keeping the choice when it is still there. */
    render(/** @type {{agentName: string, instanceId: string}[]} */ agents) {
      const keys = agents.map(agentKey);
      const current = [...agentSelect.options].map((o) => o.value);
      if (keys.join("|") === current.join("|")) return;
      const chosen = agentSelect.value;
      agentSelect.replaceChildren(
        ...agents.map((a) => h("option", { value: agentKey(a) }, `${a.agentName} (${a.instanceId})`)),
      );
      if (keys.includes(chosen)) agentSelect.value = chosen;
    },
  };
}
