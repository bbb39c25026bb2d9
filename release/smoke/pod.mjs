/**
 * A human in a pod, over the kernel's HTTP API with a user token: posts a message and waits for an agent's
 * answer to it — how the smoke sees that an installed driver (the CLI, the Python echo) really answers.
 *
 * Must never: accept an answer that is not threaded under the message it posted.
 */
import { waitFor } from "./steps.mjs";

async function call(url, token, method, path, body) {
  const res = await fetch(new URL(path, url), {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

/** Posts `content` as the human; resolves the stored message. */
export const post = (url, token, podId, content) =>
  call(url, token, "POST", `/api/pods/${podId}/messages`, { content });

/** Waits for a message by agent `agent` that replies to `message`; resolves it. */
export function answerTo(url, token, podId, message, agent, timeoutMs = 60_000) {
  return waitFor(
    `${agent}'s answer to "${message.content}"`,
    async () => {
      const { messages } = await call(url, token, "GET", `/api/pods/${podId}/messages?limit=50`);
      return messages.find(
        (m) => m.replyToMessageId === message.id && m.author?.kind === "agent" && m.author?.name === agent,
      );
    },
    timeoutMs,
  );
}
