// The public API, called with the key the user pasted. The key is kept in sessionStorage only:
// it goes when the tab closes, and it is never written to localStorage, a cookie or a URL.

const STORE = "engram.auth";

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
  }
}

/** {mode: "key"|"open"|"admin", key?, tenant?, keyId?, admin?} or null. */
export function getAuth() {
  try {
    return JSON.parse(sessionStorage.getItem(STORE) || "null");
  } catch {
    return null;
  }
}

export function setAuth(auth) {
  sessionStorage.setItem(STORE, JSON.stringify(auth));
}

export function clearAuth() {
  sessionStorage.removeItem(STORE);
}

function url(path, query) {
  const u = new URL(path, window.location.origin);
  for (const [k, v] of Object.entries(query || {})) {
    if (v === undefined || v === null || v === "") continue;
    for (const one of Array.isArray(v) ? v : [v]) u.searchParams.append(k, String(one));
  }
  return u.pathname + u.search;
}

/** One call. `token` overrides the stored key (sign-in, admin calls). Throws ApiError. */
export async function request(method, path, { query, body, token, signal } = {}) {
  const headers = { Accept: "application/json" };
  const auth = getAuth();
  const bearer = token !== undefined ? token : auth?.key;
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let r;
  for (let attempt = 0; ; attempt++) {
    r = await fetch(url(path, query), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      credentials: "omit",
      cache: "no-store",
    });
    // Rate-limited or briefly unavailable: wait as told (a few times, a few seconds at most).
    if ((r.status !== 429 && r.status !== 503) || attempt >= 3) break;
    const wait = Math.min(10, Number(r.headers.get("Retry-After")) || 1);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  }
  if (r.status === 204) return null;
  const text = await r.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { detail: text.slice(0, 300) };
  }
  if (!r.ok) {
    const err = new ApiError(r.status, data);
    if (r.status === 401 && token === undefined) window.dispatchEvent(new CustomEvent("engram:unauthorized", { detail: err }));
    throw err;
  }
  return data;
}

export const get = (path, query, opts = {}) => request("GET", path, { ...opts, query });
export const post = (path, body, opts = {}) => request("POST", path, { ...opts, body });

/** Every page of a list, `onPage(items)` as each arrives; stops after `max` items. */
export async function allPages(path, query, { limit = 1000, max = Infinity, signal, token, onPage } = {}) {
  const out = [];
  let cursor = null;
  do {
    const page = await get(path, { ...query, limit, cursor }, { signal, token });
    out.push(...page.items);
    if (onPage) onPage(page.items, out);
    cursor = page.next_cursor;
  } while (cursor && out.length < max);
  return out;
}

export const enc = encodeURIComponent;
