// Small DOM helpers. Everything is built with createElement and textContent: no HTML strings,
// so stored content can never inject markup, and the page runs under a strict CSP.

/** h("a", {href, class, onclick, "aria-label"}, child, ...) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k in el && typeof v !== "string") el[k] = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

let uid = 0;
/** A fresh id for label/for and aria pairs. */
export function newId(prefix = "f") {
  uid += 1;
  return `${prefix}-${uid}`;
}

/** A labelled form control: returns [wrapper, control]. */
export function field(label, control, hint) {
  const id = control.id || newId("in");
  control.id = id;
  const hintEl = hint ? h("span", { class: "hint", id: `${id}-hint`, text: hint }) : null;
  if (hintEl) control.setAttribute("aria-describedby", hintEl.id);
  return [h("div", { class: "field" }, h("label", { for: id, text: label }), control, hintEl), control];
}

const pad = (n) => String(n).padStart(2, "0");

/** RFC 3339 -> "2026-11-20 14:03 UTC" (seconds when asked). */
export function fmtTime(iso, seconds = false) {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const s = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  return `${s}${seconds ? `:${pad(d.getUTCSeconds())}` : ""} UTC`;
}

export function fmtDate(iso) {
  if (!iso) return "—";
  const d = new Date(iso);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** "3 min ago" style, for activity columns. */
export function ago(iso) {
  if (!iso) return "never";
  const s = (Date.now() - new Date(iso).getTime()) / 1000;
  if (s < 0) return "in the future";
  if (s < 60) return `${Math.round(s)} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} days ago`;
}

export function num(n) {
  return n === null || n === undefined ? "—" : Number(n).toLocaleString("en");
}

/** A <input type=datetime-local> value (taken as UTC) -> RFC 3339, or null. */
export function localInputToIso(value) {
  if (!value) return null;
  return `${value.length === 16 ? `${value}:00` : value}Z`;
}

export function isoToLocalInput(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

const STOP = new Set("a an and are as at be but by do does did for from had has have i in is it me my of on or so that the this to was we were what when where which who why will with you your".split(" "));

/** The words of a query worth highlighting. */
export function terms(query) {
  return [...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) || []).filter((w) => w.length > 1 && !STOP.has(w)))];
}

/** Text with each occurrence of `words` (case-insensitive, at a word start) in <mark>. */
export function highlighted(text, words) {
  const frag = document.createDocumentFragment();
  if (!words.length) {
    frag.append(text);
    return frag;
  }
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(${escaped.join("|")})[\\p{L}\\p{N}]*`, "giu");
  let last = 0;
  for (const m of text.matchAll(re)) {
    frag.append(text.slice(last, m.index));
    frag.append(h("mark", { text: m[0] }));
    last = m.index + m[0].length;
  }
  frag.append(text.slice(last));
  return frag;
}

/** A definition list from [term, value] pairs. */
export function dl(pairs, cls = "kv") {
  return h("dl", { class: cls }, pairs.filter(Boolean).map(([k, v]) => [h("dt", { text: k }), h("dd", {}, v)]));
}

/** Runs `fn` over items with at most `n` in flight. */
export async function pool(items, n, fn) {
  let i = 0;
  const worker = async () => {
    while (i < items.length) {
      const item = items[i++];
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

/** Replace an element's children (skipping null/false, flattening arrays). */
export function fill(el, ...children) {
  return append(clear(el), children);
}
