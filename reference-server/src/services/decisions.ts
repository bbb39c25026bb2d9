/**
 * Decisions (ADR-004, CAP-DEC-*): an agent asks the pod's humans to choose between 2–4 options. The kernel
 * stores the decision and posts the question as the agent; a human answers through the admin surface, which
 * posts an ordinary threaded human reply to the question, waking the asker as `message.posted`.
 * Advisory text only: must never attach a privileged action, credential or approval to either side.
 */

import type { components as Cap } from "@commonly/cap-spec/types/cap";
import { iso } from "../clock.js";
import { fail } from "../errors/registry.js";
import { newId } from "../secrets.js";
import type { DecisionRecord } from "../store/contract.js";
import { requirePodMember } from "./access.js";
import type { AgentCaller, ServiceDeps, UserCaller } from "./deps.js";
import type { MessagesService } from "./messages.js";
import type { TraceContext } from "./trace-context.js";

export type DecisionBody = Cap["schemas"]["DecisionRequest"];

function questionText(b: DecisionBody): string {
  const options = b.options.map((o, i) => `${i + 1}. ${o}`).join("\n");
  return `**${b.title}**\n\n${b.question}\n\n${options}`;
}

export function wireDecision(d: DecisionRecord) {
  return {
    id: d.id,
    podId: d.podId,
    agentId: d.agentId,
    messageId: d.messageId,
    decisionClass: d.decisionClass,
    title: d.title,
    question: d.question,
    options: d.options,
    ...(d.threadRootId !== null ? { threadRootId: d.threadRootId } : {}),
    ...(d.context !== null ? { context: d.context } : {}),
    createdAt: iso(d.createdAt),
    answer:
      d.answeredAt === null
        ? null
        : {
            option: d.answerOption,
            answeredBy: d.answeredBy,
            messageId: d.answerMessageId,
            answeredAt: iso(d.answeredAt),
          },
  };
}

export function createDecisionsService(deps: ServiceDeps, messages: MessagesService) {
  const { store, clock } = deps;
  return {
    async ask(caller: AgentCaller, body: DecisionBody, trace?: TraceContext) {
      await messages.requireInstalled(store, caller.agentId, body.podId);
      const text = questionText(body);
      messages.checkContent(text);
      // The question is a post: it counts against the token's posting quota like any other.
      const bytes = Buffer.byteLength(JSON.stringify(body), "utf8");
      return messages.underQuota(caller, bytes, (take) =>
        store.transaction(async (tx) => {
          await messages.requireInstalled(tx, caller.agentId, body.podId);
          take();
          const id = newId("dec");
          const message = await messages.insert(
            tx,
            body.podId,
            { kind: "agent", id: caller.agentId, name: caller.agentName },
            {
              content: text,
              ...(body.threadRootId !== undefined ? { replyToMessageId: body.threadRootId } : {}),
              metadata: {
                kind: "decision",
                decisionId: id,
                decisionClass: body.decisionClass,
                options: body.options,
              },
            },
            undefined,
            trace,
          );
          await tx.insertDecision({
            id,
            podId: body.podId,
            agentId: caller.agentId,
            messageId: message.id,
            decisionClass: body.decisionClass,
            title: body.title,
            question: body.question,
            options: body.options,
            threadRootId: body.threadRootId ?? null,
            context: body.context ?? null,
            createdAt: message.createdAt,
            answeredAt: null,
            answeredBy: null,
            answerOption: null,
            answerMessageId: null,
          });
          return { id, messageId: message.id, createdAt: iso(message.createdAt) };
        }),
      );
    },

    async get(user: UserCaller, decisionId: string) {
      const d = await store.getDecision(decisionId);
      if (!d) fail("decision_not_found");
      await requirePodMember(store, user, d.podId, "decision_not_found");
      return d;
    },

    async list(user: UserCaller, podId: string) {
      await requirePodMember(store, user, podId);
      return store.listDecisions({ podId });
    },

    /** A human answers: posts the option as a threaded human reply to the question message. */
    async answer(user: UserCaller, decisionId: string, option: string, trace?: TraceContext) {
      const d = await this.get(user, decisionId);
      if (!d.options.includes(option)) fail("invalid_decision_option", undefined, { options: d.options });
      return store.transaction(async (tx) => {
        const now = clock.now();
        const messageId = newId("msg");
        if (
          !(await tx.answerDecision({
            id: d.id,
            now,
            answeredBy: user.userId,
            option,
            answerMessageId: messageId,
          }))
        )
          fail("decision_already_answered");
        const reply = await messages.insert(
          tx,
          d.podId,
          { kind: "human", id: user.userId, name: user.name },
          {
            content: option,
            replyToMessageId: d.messageId,
            metadata: { kind: "decision-answer", decisionId: d.id, option },
          },
          messageId,
          trace,
        );
        return { decisionId: d.id, messageId: reply.id, createdAt: iso(reply.createdAt) };
      });
    },
  };
}

export type DecisionsService = ReturnType<typeof createDecisionsService>;
