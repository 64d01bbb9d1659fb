// The shell: sign-in, navigation and the hash router (#/view/arg?param=...).
import { clearAuth, get, getAuth, request, setAuth } from "./api.js";
import { clear } from "./dom.js";
import { context, forgetContext, hideError, showError } from "./shell.js";
import { KEY_NAME, renderLogin } from "./views/login.js";
import { renderUsers } from "./views/users.js";
import { renderTimeline } from "./views/timeline.js";
import { renderFacts } from "./views/facts.js";
import { renderMemory } from "./views/memory.js";
import { renderSearch } from "./views/search.js";
import { renderWork } from "./views/work.js";

const VIEWS = {
  users: { render: renderUsers, title: "Users & sessions" },
  timeline: { render: renderTimeline, title: "Session timeline" },
  facts: { render: renderFacts, title: "Facts over time" },
  memory: { render: renderMemory, title: "What the agent sees" },
  search: { render: renderSearch, title: "Search" },
  work: { render: renderWork, title: "Derived work" },
};

const main = document.getElementById("view");
let current = null; // the AbortController of the view on screen

function parseHash() {
  const raw = window.location.hash.replace(/^#\/?/, "");
  const [path, qs] = raw.split("?");
  const [view, ...rest] = path.split("/");
  return { view: view || "users", arg: rest.map(decodeURIComponent).join("/"), params: new URLSearchParams(qs || "") };
}

function updateNav() {
  const { view } = parseHash();
  const c = context();
  const enc = encodeURIComponent;
  const targets = {
    users: c.user ? `#/users?user=${enc(c.user)}` : "#/users",
    timeline: c.session ? `#/timeline/${enc(c.session)}` : "#/timeline",
    facts: c.user ? `#/facts/${enc(c.user)}` : "#/facts",
    memory: c.session ? `#/memory/${enc(c.session)}` : "#/memory",
    search: c.user ? `#/search?user_id=${enc(c.user)}` : "#/search",
    work: "#/work",
  };
  for (const a of document.querySelectorAll("#nav a[data-view]")) {
    a.href = targets[a.dataset.view];
    if (a.dataset.view === view) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}

function showShell(auth) {
  document.getElementById("nav").hidden = false;
  document.getElementById("who").hidden = false;
  const label = auth.mode === "open" ? "Auth is off: the default tenant" : auth.tenant ? `Tenant ${auth.tenant}` : `Key ${auth.key.slice(0, 10)}…`;
  document.getElementById("who-label").textContent = label;
}

function hideShell() {
  document.getElementById("nav").hidden = true;
  document.getElementById("who").hidden = true;
}

export async function signOut(message) {
  const auth = getAuth();
  // A key minted for this browser session from the admin token is revoked with it.
  if (auth?.mode === "admin" && auth.keyId) {
    try {
      await request("DELETE", `/v1/admin/keys/${auth.keyId}`, { token: auth.admin });
    } catch {
      /* already revoked, or the token changed: nothing more to undo */
    }
  }
  clearAuth();
  forgetContext();
  if (current) current.abort();
  hideShell();
  renderLogin(main, { message, onDone: () => route() });
}

async function route() {
  const auth = getAuth();
  if (!auth) {
    hideShell();
    // Auth off: the API answers without a key, so there is nothing to paste.
    try {
      await get("/v1/users", { limit: 1 }, { token: null });
      sessionStorage.setItem("engram.auth", JSON.stringify({ mode: "open" }));
      return route();
    } catch {
      renderLogin(main, { onDone: () => route() });
      return;
    }
  }
  showShell(auth);
  const { view, arg, params } = parseHash();
  const spec = VIEWS[view] || VIEWS.users;
  if (current) current.abort();
  current = new AbortController();
  hideError();
  performance.clearMarks("engram:route-start");
  performance.mark("engram:route-start");
  document.title = `${spec.title} · Engram`;
  updateNav();
  clear(main);
  delete main.dataset.rendered;
  try {
    await spec.render(main, { arg, params, signal: current.signal });
  } catch (err) {
    showError(err);
  }
}

window.addEventListener("engram:unauthorized", (e) => {
  signOut(`Signed out: ${e.detail.message}`);
});
window.addEventListener("engram:context", updateNav);
window.addEventListener("hashchange", () => {
  route();
  main.focus({ preventScroll: true });
});
document.getElementById("sign-out").addEventListener("click", () => signOut("Signed out."));

// A key minted from the admin token lives only as long as the page: revoked when the page goes
// (closed, reloaded, navigated away), minted again when the tab comes back to it.
window.addEventListener("pagehide", () => {
  const auth = getAuth();
  if (auth?.mode === "admin" && auth.keyId) {
    fetch(`/v1/admin/keys/${auth.keyId}`, { method: "DELETE", keepalive: true, headers: { Authorization: `Bearer ${auth.admin}` } });
  }
});

async function start() {
  const auth = getAuth();
  if (auth?.mode === "admin") {
    try {
      const created = await request("POST", "/v1/admin/keys", { token: auth.admin, body: { tenant_id: auth.tenant, name: KEY_NAME } });
      setAuth({ ...auth, key: created.key, keyId: created.key_id });
    } catch {
      clearAuth(); // the admin token no longer works: sign in again
    }
  }
  route();
}
start();
