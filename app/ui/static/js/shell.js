// What every view shares with the shell: the alert and status regions, navigation, and the
// user and session last looked at (so each view's nav link opens on them).
import { ApiError } from "./api.js";
import { clear, h } from "./dom.js";

const CTX = "engram.ctx";

export function context() {
  try {
    return JSON.parse(sessionStorage.getItem(CTX) || "{}");
  } catch {
    return {};
  }
}

export function remember(patch) {
  sessionStorage.setItem(CTX, JSON.stringify({ ...context(), ...patch }));
  window.dispatchEvent(new CustomEvent("engram:context"));
}

export function forgetContext() {
  sessionStorage.removeItem(CTX);
}

export function showError(err) {
  if (err?.name === "AbortError") return;
  // A 401 has already signed the user out, with its reason on the sign-in form.
  if (err instanceof ApiError && err.status === 401) return;
  const box = document.getElementById("alert");
  const p = err instanceof ApiError ? err.problem : null;
  clear(box);
  box.append(
    h("strong", { text: err instanceof ApiError ? `${err.status} ${p.title || "Error"}:` : "Error:" }),
    " ",
    err?.message || String(err),
    " ",
    h("button", { type: "button", class: "quiet", text: "Dismiss", onclick: () => (box.hidden = true) }),
  );
  box.hidden = false;
}

export function hideError() {
  document.getElementById("alert").hidden = true;
}

export function say(text) {
  document.getElementById("status").textContent = text;
}

export function go(hash) {
  if (window.location.hash === hash) window.dispatchEvent(new HashChangeEvent("hashchange"));
  else window.location.hash = hash;
}

export const enc = encodeURIComponent;

/** "Open" links for a user or a session, used by several views. */
export function userLinks(user) {
  return h(
    "span",
    { class: "links" },
    h("a", { href: `#/facts/${enc(user)}`, text: "facts" }),
    h("a", { href: `#/search?user_id=${enc(user)}`, text: "search" }),
    h("a", { href: `#/work?user_id=${enc(user)}`, text: "derived work" }),
  );
}

/** A small form asking for the id a view needs (a session, a user), then navigating. */
export function askFor(container, { label, hint, view }) {
  const input = h("input", { type: "text", name: "id", required: true, autocomplete: "off", spellcheck: "false" });
  const id = `ask-${view}`;
  input.id = id;
  const form = h(
    "form",
    {
      class: "ask card",
      onsubmit: (e) => {
        e.preventDefault();
        go(`#/${view}/${enc(input.value.trim())}`);
      },
    },
    h("label", { for: id, text: label }),
    h("div", { class: "row" }, input, h("button", { type: "submit", text: "Open" })),
    hint ? h("p", { class: "hint", text: hint }) : null,
  );
  container.append(form);
  input.focus();
}
