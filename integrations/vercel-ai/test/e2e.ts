/**
 * End to end against a live server (tests/test_vercel_ai.py starts one): the tools run inside a
 * real `generateText` loop whose model is the AI SDK's own mock (no LLM), the memory context and a
 * turn's messages. Needs ENGRAM_URL, ENGRAM_API_KEY, ENGRAM_RUN. Prints one JSON line.
 */
import assert from "node:assert/strict";

import { createEngramClient } from "@engram/client";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";

import { engramTools, memoryContext, rememberMessages } from "../src/index.js";

const engram = createEngramClient(process.env.ENGRAM_URL!, process.env.ENGRAM_API_KEY);
const run = process.env.ENGRAM_RUN!;
const userId = `ai-user-${run}`;
const sessionId = `ai-sess-${run}`;

assert.equal(await memoryContext(engram, { sessionId }), "");
const turn = [
  { role: "user" as const, content: "I moved to Lisbon last week." },
  { role: "assistant" as const, content: [{ type: "text" as const, text: "Congratulations on the move!" }] },
];
assert.equal(await rememberMessages(engram, { sessionId, userId, messages: turn, turnId: "t1" }), 2);
assert.equal(await rememberMessages(engram, { sessionId, userId, messages: turn, turnId: "t1" }), 2); // a retry
const stored = await engram.GET("/v1/sessions/{session_id}/messages", { params: { path: { session_id: sessionId } } });
assert.deepEqual(
  stored.data?.items.map((m) => [m.role, m.content]),
  [
    ["user", "I moved to Lisbon last week."],
    ["assistant", "Congratulations on the move!"],
  ],
);
const context = await memoryContext(engram, { sessionId, query: "where do I live?" });
assert.match(context, /I moved to Lisbon last week\./);

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const call = (id: string, toolName: string, input: unknown) => ({
  content: [{ type: "tool-call" as const, toolCallId: id, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
  usage,
  warnings: [],
});
const model = new MockLanguageModelV3({
  doGenerate: [
    call("c1", "rememberFact", { content: "Is vegetarian." }),
    call("c2", "listFacts", {}),
    call("c3", "searchMemory", { query: "Lisbon", limit: 3 }),
    { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] },
  ],
});
const tools = engramTools(engram, { userId });
const result = await generateText({
  model,
  system: context,
  prompt: "Remember that I am vegetarian.",
  tools,
  stopWhen: stepCountIs(5),
});
assert.equal(result.text, "done");
const outputs = result.steps.flatMap((s) => s.toolResults.map((r) => [r.toolName, r.output] as const));
const remembered = outputs[0]![1] as { factId: string; content: string };
assert.equal(remembered.content, "Is vegetarian.");
assert.ok((outputs[1]![1] as { factId: string }[]).some((f) => f.factId === remembered.factId));
const hits = outputs[2]![1] as { content: string }[];
assert.ok(hits.some((h) => h.content.includes("Lisbon")), JSON.stringify(hits));
// The system prompt the model saw was Engram's memory.
assert.match(JSON.stringify(model.doGenerateCalls[0]!.prompt), /I moved to Lisbon last week/);

// Another user's tools see none of it; forgetting removes the fact.
const strangers = engramTools(engram, { userId: `other-${run}` });
const opts = { toolCallId: "x", messages: [] };
assert.deepEqual(await strangers.listFacts.execute!({}, opts), []);
assert.deepEqual(await strangers.searchMemory.execute!({ query: "Lisbon", limit: 5 }, opts), []);
assert.deepEqual(await tools.forgetFact.execute!({ factId: remembered.factId }, opts), { forgotten: remembered.factId });
const left = (await tools.listFacts.execute!({}, opts)) as { factId: string }[];
assert.ok(!left.some((f) => f.factId === remembered.factId));

console.log(JSON.stringify({ session_id: sessionId, tool_calls: outputs.length, context_chars: context.length }));
