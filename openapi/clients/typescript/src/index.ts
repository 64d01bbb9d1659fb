/**
 * A typed client for Engram: openapi-fetch over the types that openapi-typescript generates from
 * openapi/openapi.json (src/schema.ts; `make clients` rewrites it). Every path, parameter, body and
 * response is checked by the compiler; errors come back as RFC 9457 problem objects in `error`.
 *
 *   const engram = createEngramClient("http://127.0.0.1:8000", process.env.ENGRAM_API_KEY);
 *   const { data, error } = await engram.GET("/v1/sessions/{session_id}/memory", {
 *     params: { path: { session_id: "sess-1" }, query: { max_tokens: 2000 } },
 *   });
 */
import createClient, { type Client, type ClientOptions, mergeHeaders } from "openapi-fetch";

import type { components, paths } from "./schema.js";

export type { components, operations, paths } from "./schema.js";

export type EngramClient = Client<paths>;
export type Schemas = components["schemas"];
export type Problem = Schemas["Problem"];

/**
 * A client for the server at `baseUrl`. `apiKey` is a tenant key (`egm_...`), or the admin token
 * for /v1/admin; leave it out when the server runs with auth off.
 */
export function createEngramClient(
  baseUrl: string,
  apiKey?: string,
  options: Omit<ClientOptions, "baseUrl"> = {},
): EngramClient {
  const auth = apiKey ? { Authorization: `Bearer ${apiKey}` } : undefined;
  const headers = mergeHeaders(options.headers, auth);
  return createClient<paths>({ ...options, baseUrl: baseUrl.replace(/\/+$/, ""), headers });
}
