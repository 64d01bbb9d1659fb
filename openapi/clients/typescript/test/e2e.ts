/**
 * End to end against a live server (tests/test_clients.py starts one): the calls an agent makes on
 * every turn, through the typed client. Needs ENGRAM_URL, ENGRAM_API_KEY, ENGRAM_OTHER_API_KEY (a
 * second tenant, to import into) and ENGRAM_RUN (a unique suffix for ids). Prints one JSON line with
 * what it saw; any failed expectation exits non-zero.
 */
import assert from "node:assert/strict";

import { createEngramClient } from "../src/index.js";

function need(name: string): string {
  const value = process.env[name];
  assert.ok(value, `${name} is not set`);
  return value;
}

const engram = createEngramClient(need("ENGRAM_URL"), need("ENGRAM_API_KEY"));
const run = need("ENGRAM_RUN");
const userId = `ts-user-${run}`;
const sessionId = `ts-sess-${run}`;

const user = await engram.PUT("/v1/users/{user_id}", {
  params: { path: { user_id: userId } },
  body: { metadata: { client: "typescript" } },
});
assert.equal(user.response.status, 201, JSON.stringify(user.error));
assert.deepEqual(user.data?.metadata, { client: "typescript" });

const session = await engram.POST("/v1/sessions", {
  body: { session_id: sessionId, user_id: userId, metadata: { channel: "e2e" } },
});
assert.equal(session.data?.session_id, sessionId, JSON.stringify(session.error));

const appended = await engram.POST("/v1/sessions/{session_id}/messages", {
  params: { path: { session_id: sessionId }, header: { "Idempotency-Key": `ts-append-${run}` } },
  body: {
    messages: [
      { role: "user", content: "My cat Miso only eats salmon flavoured kibble.", name: "Ada" },
      { role: "assistant", content: "Noted: Miso is a salmon fan." },
    ],
  },
});
assert.equal(appended.response.status, 201, JSON.stringify(appended.error));
assert.deepEqual(
  appended.data?.messages.map((m) => m.seq),
  [1, 2],
);

const memory = await engram.GET("/v1/sessions/{session_id}/memory", {
  params: { path: { session_id: sessionId }, query: { max_tokens: 500 } },
});
assert.ok(memory.data, JSON.stringify(memory.error));
assert.ok(memory.data.context.includes("salmon flavoured kibble"), memory.data.context);
assert.ok(memory.data.token_count > 0 && memory.data.token_count <= 500);

// Semantic hits need the worker's embeddings: search again until the scope is fully indexed.
async function searchIndexed(query: string) {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const found = await engram.POST("/v1/search", {
      body: { query, user_id: userId, limit: 3, wait_for_indexing_ms: 5000 },
    });
    assert.ok(found.data, JSON.stringify(found.error));
    if (found.data.indexing.complete || Date.now() > deadline) return found.data;
  }
}
const search = await searchIndexed("what does the cat eat?");
assert.equal(search.indexing.complete, true);
const top = search.results[0];
assert.ok(top?.content.includes("salmon"), JSON.stringify(search.results));
assert.ok((top?.scores.semantic ?? 0) > 0, "the hit was not found by meaning");

const added = await engram.POST("/v1/users/{user_id}/facts", {
  params: { path: { user_id: userId } },
  body: { content: "Has a cat called Miso.", kind: "relationship" },
});
assert.equal(added.response.status, 201, JSON.stringify(added.error));
const facts = await engram.GET("/v1/users/{user_id}/facts", {
  params: { path: { user_id: userId }, query: { limit: 100 } },
});
assert.ok(facts.data, JSON.stringify(facts.error));
assert.ok(facts.data.items.some((f) => f.fact_id === added.data?.fact_id));

// A user's memory moves to another tenant as JSON Lines: text both ways, not JSON.
const exported = await engram.GET("/v1/users/{user_id}/export", {
  params: { path: { user_id: userId } },
  parseAs: "text",
});
assert.ok(exported.data, JSON.stringify(exported.error));
const elsewhere = createEngramClient(need("ENGRAM_URL"), need("ENGRAM_OTHER_API_KEY"));
const imported = await elsewhere.POST("/v1/users/{user_id}/import", {
  params: { path: { user_id: userId } },
  body: exported.data,
  bodySerializer: (body) => body,
  headers: { "Content-Type": "application/x-ndjson" },
});
assert.ok(imported.data, JSON.stringify(imported.error));
assert.equal(imported.data.created.messages, 2);

// Errors are typed problem objects, not exceptions.
const missing = await engram.GET("/v1/sessions/{session_id}", {
  params: { path: { session_id: `ghost-${run}` } },
});
assert.equal(missing.response.status, 404);
assert.equal(missing.error?.type, "urn:engram:problem:not-found");

console.log(
  JSON.stringify({
    session_id: sessionId,
    seqs: appended.data?.messages.map((m) => m.seq),
    memory_tokens: memory.data.token_count,
    top_hit: top?.id,
    fact_id: added.data?.fact_id,
    facts: facts.data.items.length,
  }),
);
