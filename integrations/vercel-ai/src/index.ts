/**
 * Engram for the Vercel AI SDK, over the typed client `@engram/client`:
 *
 * - `engramTools(engram, { userId })`: long-term memory as AI SDK tools (`searchMemory`,
 *   `listFacts`, `rememberFact`, `forgetFact`) for `generateText` / `streamText`; the user is fixed
 *   by your code, never chosen by the model;
 * - `memoryContext(engram, { sessionId, query })`: the session's memory (summary, relevant facts,
 *   newest messages) as one string for the `system` prompt, within a token budget;
 * - `rememberMessages(engram, { sessionId, userId, messages })`: a turn's `ModelMessage`s appended to
 *   the session (created for `userId` when new), retry-safe with `turnId`.
 */
import type { EngramClient, Problem } from "@engram/client";
import { type ModelMessage, tool } from "ai";
import { z } from "zod";

export class EngramError extends Error {
  constructor(readonly problem: Problem) {
    super(`${problem.title}: ${problem.detail} (${problem.type})`);
  }
}

function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || result.data === undefined) {
    throw new EngramError(result.error as Problem);
  }
  return result.data;
}

export interface UserScope {
  userId: string;
  /** Limit searches to this session (facts stay the user's). */
  sessionId?: string;
}

export function engramTools(engram: EngramClient, scope: UserScope) {
  const { userId, sessionId } = scope;
  return {
    searchMemory: tool({
      description:
        "Search what the user said in past conversations, their summaries and the facts known about the user, " +
        "by meaning and words. Returns the best matches.",
      inputSchema: z.object({
        query: z.string().min(1).describe("What to look for, in natural language."),
        limit: z.number().int().min(1).max(50).default(5).describe("At most this many results."),
      }),
      execute: async ({ query, limit }) => {
        const found = ok(
          await engram.POST("/v1/search", {
            body: {
              query,
              limit,
              user_id: userId,
              kinds: ["messages", "facts", "summaries"],
              ...(sessionId ? { session_id: sessionId } : {}),
            },
          }),
        );
        return found.results.map((h) => ({ kind: h.kind, content: h.content, score: h.score }));
      },
    }),
    listFacts: tool({
      description: "List the facts known about the user that are true now, with their ids.",
      inputSchema: z.object({}),
      execute: async () => {
        const page = await engram.GET("/v1/users/{user_id}/facts", { params: { path: { user_id: userId } } });
        if (page.response.status === 404) return []; // no such user yet: no facts
        return ok(page).items.map((f) => ({ factId: f.fact_id, content: f.content }));
      },
    }),
    rememberFact: tool({
      description: "Remember a lasting fact about the user (a short statement, e.g. 'Is vegetarian.').",
      inputSchema: z.object({ content: z.string().min(1).describe("The statement.") }),
      execute: async ({ content }) => {
        const fact = ok(
          await engram.POST("/v1/users/{user_id}/facts", { params: { path: { user_id: userId } }, body: { content } }),
        );
        return { factId: fact.fact_id, content: fact.content };
      },
    }),
    forgetFact: tool({
      description: "Forget a fact about the user for good (its text is erased from its history too).",
      inputSchema: z.object({ factId: z.string().uuid().describe("The id, from listFacts.") }),
      execute: async ({ factId }) => {
        const gone = await engram.DELETE("/v1/facts/{fact_id}", {
          params: { path: { fact_id: factId }, query: { redact: true } },
        });
        if (gone.response.status !== 204) throw new EngramError(gone.error as Problem);
        return { forgotten: factId };
      },
    }),
  };
}

/** The session's memory for a prompt ("" for a session that does not exist yet). */
export async function memoryContext(
  engram: EngramClient,
  { sessionId, query, maxTokens = 2000 }: { sessionId: string; query?: string; maxTokens?: number },
): Promise<string> {
  const memory = await engram.GET("/v1/sessions/{session_id}/memory", {
    params: { path: { session_id: sessionId }, query: { max_tokens: maxTokens, ...(query ? { query } : {}) } },
  });
  if (memory.response.status === 404) return "";
  return ok(memory).context;
}

const ROLES = { user: "user", assistant: "assistant", system: "system", tool: "tool" } as const;

function text(message: ModelMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((part) => {
      if (part.type === "text") return part.text;
      if (part.type === "tool-call") return `${part.toolName}(${JSON.stringify(part.input)})`;
      if (part.type === "tool-result") return JSON.stringify(part.output);
      return "";
    })
    .filter(Boolean)
    .join("\n");
}

/**
 * Appends a turn's messages to the session, creating it for `userId` when new. With `turnId` (your
 * id for the turn) a retried call stores nothing twice.
 */
export async function rememberMessages(
  engram: EngramClient,
  { sessionId, userId, messages, turnId }: { sessionId: string; userId: string; messages: ModelMessage[]; turnId?: string },
): Promise<number> {
  const body = {
    messages: messages
      .map((m) => ({ role: ROLES[m.role], content: text(m), metadata: { ai_sdk_role: m.role } }))
      .filter((m) => m.content.length > 0),
  };
  if (body.messages.length === 0) return 0;
  const headers = turnId ? { "Idempotency-Key": `ai-sdk-${sessionId}-${turnId}` } : undefined;
  const append = () =>
    engram.POST("/v1/sessions/{session_id}/messages", {
      params: { path: { session_id: sessionId }, header: headers ? { "Idempotency-Key": headers["Idempotency-Key"] } : {} },
      body,
    });
  let stored = await append();
  if (stored.response.status === 404) {
    const made = await engram.POST("/v1/sessions", { body: { session_id: sessionId, user_id: userId } });
    if (made.response.status !== 201 && made.response.status !== 409) ok(made);
    stored = await append();
  }
  return ok(stored).messages.length;
}
