// A user's facts over time: each fact's validity interval on one time axis, supersessions and
// invalidations linked, each fact's history, and an as-of control (answered by the API's own
// `as_of`, not by redrawing dates here).
import { allPages, enc, get } from "../api.js";
import { dl, field, fill, fmtDate, fmtTime, h, isoToLocalInput, localInputToIso, num } from "../dom.js";
import { askFor, go, remember, say, showError } from "../shell.js";

const MAX_ROWS = 2000;
const KNOWN = new Set(
  "fact_id user_id content kind subject exclusive topics importance current_importance metadata actor source_message_ids session_id valid_from invalid_at superseded_by mention_count last_mentioned_at last_used_at created_at updated_at".split(" "),
);

export async function renderFacts(main, { arg, params, signal }) {
  if (!arg) {
    main.append(h("h2", { text: "Facts over time" }));
    askFor(main, { label: "User id", hint: "Or pick a user under Users & sessions.", view: "facts" });
    return;
  }
  const user = arg;
  remember({ user });
  const asOf = params.get("as_of");
  const kindFilter = params.get("kind") || "";
  const focusFact = params.get("fact");

  const facts = await allPages(`/v1/users/${enc(user)}/facts`, { include_invalid: true }, { signal, max: MAX_ROWS });
  facts.sort((a, b) => a.valid_from.localeCompare(b.valid_from) || a.content.localeCompare(b.content));
  const held = asOf ? new Set((await allPages(`/v1/users/${enc(user)}/facts`, { as_of: asOf }, { signal, max: MAX_ROWS })).map((f) => f.fact_id)) : null;
  const byId = new Map(facts.map((f) => [f.fact_id, f]));
  const supersedes = new Map(); // new fact -> the facts it superseded
  for (const f of facts) if (f.superseded_by) supersedes.set(f.superseded_by, [...(supersedes.get(f.superseded_by) || []), f]);

  // --- controls --------------------------------------------------------------------------------
  const asOfInput = h("input", { type: "datetime-local", name: "as_of", value: isoToLocalInput(asOf) });
  const [asOfField] = field("As of (UTC)", asOfInput, "Shows the facts that held then: valid_from ≤ t < invalid_at.");
  const kinds = [...new Set(facts.map((f) => f.kind))].sort();
  const kindSelect = h("select", { name: "kind" }, h("option", { value: "", text: "all kinds" }), kinds.map((k) => h("option", { value: k, text: k, selected: k === kindFilter })));
  const [kindField] = field("Kind", kindSelect);
  const apply = (patch) => {
    const q = new URLSearchParams({ ...(asOf ? { as_of: asOf } : {}), ...(kindFilter ? { kind: kindFilter } : {}), ...patch });
    for (const [k, v] of [...q]) if (!v) q.delete(k);
    go(`#/facts/${enc(user)}${q.toString() ? `?${q}` : ""}`);
  };
  const controls = h(
    "form",
    {
      class: "controls card",
      "aria-label": "Facts filters",
      onsubmit: (e) => {
        e.preventDefault();
        apply({ as_of: localInputToIso(asOfInput.value) || "", kind: kindSelect.value });
      },
    },
    asOfField,
    kindField,
    h("div", { class: "row" }, h("button", { type: "submit", text: "Apply" }), h("button", { type: "button", class: "quiet", text: "Now", onclick: () => apply({ as_of: "" }) })),
  );

  const shown = facts.filter((f) => !kindFilter || f.kind === kindFilter);
  const now = new Date().toISOString();
  const times = shown.flatMap((f) => [f.valid_from, f.invalid_at || now]).concat(asOf ? [asOf] : []);
  const t0 = times.length ? Math.min(...times.map((t) => Date.parse(t))) : Date.now();
  const t1 = Math.max(Date.now(), ...times.map((t) => Date.parse(t)));
  const span = Math.max(1, t1 - t0);
  const pct = (iso) => ((Date.parse(iso) - t0) / span) * 100;

  const history = h("aside", { class: "card detail", id: "fact-history", "aria-label": "Fact history", tabindex: "-1" }, h("p", { class: "muted", text: "Choose a fact to see its history." }));
  const rows = h("ol", { class: "gantt", "aria-label": `Facts of ${user} by valid_from` });
  const current = shown.filter((f) => !f.invalid_at).length;
  main.append(
    h("h2", {}, "Facts of ", h("code", { text: user })),
    h(
      "p",
      { class: "muted" },
      `${num(shown.length)} facts (${num(current)} current, ${num(shown.length - current)} ended or superseded)`,
      facts.length >= MAX_ROWS ? `; the oldest ${MAX_ROWS} by the API's order are shown` : "",
      asOf ? `; ${num(held.size)} held at ${fmtTime(asOf)}` : "",
      ".",
    ),
    controls,
    h(
      "div",
      { class: "timeline" },
      h(
        "div",
        { class: "tl-main card" },
        h("div", { class: "axis", "aria-hidden": "true" }, h("span", { text: fmtDate(new Date(t0).toISOString()) }), h("span", { text: fmtDate(new Date(t0 + span / 2).toISOString()) }), h("span", { text: "now" })),
        rows,
      ),
      h("div", { class: "tl-side" }, history),
    ),
  );
  if (!shown.length) rows.append(h("li", { class: "muted", text: "No facts." }));

  for (const f of shown) {
    const ended = Boolean(f.invalid_at);
    const state = f.superseded_by ? "superseded" : ended ? "ended" : "current";
    const bar = h("span", { class: `bar ${state}`, title: `${fmtTime(f.valid_from)} → ${ended ? fmtTime(f.invalid_at) : "now"}` });
    bar.style.left = `${pct(f.valid_from)}%`;
    bar.style.width = `${Math.max(0.6, pct(f.invalid_at || now) - pct(f.valid_from))}%`;
    const track = h("div", { class: "track", "aria-hidden": "true" }, bar);
    if (asOf) {
      const line = h("span", { class: "asof" });
      line.style.left = `${pct(asOf)}%`;
      track.append(line);
    }
    const newer = f.superseded_by ? byId.get(f.superseded_by) : null;
    const older = supersedes.get(f.fact_id) || [];
    const label = h("button", {
      type: "button",
      class: "linkish fact-label",
      id: `fact-${f.fact_id}`,
      text: f.content,
      onclick: () => showHistory(f),
    });
    const li = h(
      "li",
      { class: `frow ${state}${held && !held.has(f.fact_id) ? " dim" : ""}${held && held.has(f.fact_id) ? " held" : ""}`, dataset: { fact: f.fact_id } },
      h(
        "div",
        { class: "flabel" },
        label,
        h(
          "span",
          { class: "fmeta" },
          h("span", { class: `chip k-${f.kind}`, text: f.kind }),
          h("span", { class: `chip ${state === "current" ? "ok" : "ended"}`, text: state }),
          ` ${fmtDate(f.valid_from)} → ${ended ? fmtDate(f.invalid_at) : "now"}`,
          held ? h("span", { class: "sr-only", text: held.has(f.fact_id) ? " (held at the chosen time)" : " (did not hold at the chosen time)" }) : null,
          newer ? [" · superseded by ", h("button", { type: "button", class: "linkish", text: newer.content, onclick: () => jump(newer.fact_id) })] : f.superseded_by ? " · superseded by a fact not shown" : null,
          older.length ? [" · supersedes ", older.map((o, n) => [n ? ", " : "", h("button", { type: "button", class: "linkish", text: o.content, onclick: () => jump(o.fact_id) })])] : null,
        ),
      ),
      track,
    );
    rows.append(li);
  }
  if (focusFact) {
    const f = byId.get(focusFact);
    if (f) {
      jump(focusFact);
      showHistory(f);
    }
  }
  say(`${shown.length} facts of ${user}`);

  function jump(id) {
    const el = document.getElementById(`fact-${id}`);
    if (!el) return;
    for (const x of rows.querySelectorAll(".frow.target")) x.classList.remove("target");
    el.closest(".frow").classList.add("target");
    el.scrollIntoView({ block: "center" });
    el.focus();
  }

  async function showHistory(f) {
    fill(history, h("h3", { text: f.content }), h("p", { class: "muted", text: "Loading history…" }));
    try {
      const events = await allPages(`/v1/facts/${enc(f.fact_id)}/history`, {}, { signal, limit: 100 });
      const sources = f.source_message_ids || [];
      fill(history, 
        h("h3", { text: f.content }),
        dl([
          ["Kind", f.kind],
          f.subject ? ["Subject", `${f.subject}${f.exclusive ? " (exclusive)" : ""}`] : null,
          ["Valid", `${fmtTime(f.valid_from)} → ${f.invalid_at ? fmtTime(f.invalid_at) : "now"}`],
          ["Importance", `${f.importance} (now ${Number(f.current_importance).toFixed(2)})`],
          ["Mentions", `${f.mention_count}, last ${fmtTime(f.last_mentioned_at)}`],
          ["Actor", f.actor],
          f.topics?.length ? ["Topics", f.topics.join(", ")] : null,
          Object.keys(f.metadata || {}).length ? ["Metadata", h("code", { text: JSON.stringify(f.metadata) })] : null,
          // Fields this page does not know yet (the API grows): shown as they come.
          ...Object.entries(f)
            .filter(([k, v]) => !KNOWN.has(k) && v !== null && v !== undefined && !(Array.isArray(v) && !v.length))
            .map(([k, v]) => [k, typeof v === "object" ? JSON.stringify(v) : String(v)]),
          [
            "Learnt from",
            sources.length && f.session_id
              ? h("span", {}, sources.map((m, n) => [n ? ", " : "", h("a", { href: `#/timeline/${enc(f.session_id)}?msg=${enc(m)}`, text: `turn ${n + 1} in ${f.session_id}` })]))
              : "added over the API",
          ],
        ]),
        h("h4", { text: `History (${events.length} events)` }),
        h(
          "ol",
          { class: "events" },
          events.map((e) =>
            h(
              "li",
              {},
              h("span", { class: `chip ev-${e.event.toLowerCase()}`, text: e.event }),
              ` ${fmtTime(e.created_at, true)} · ${e.actor}${e.reason ? ` · ${e.reason}` : ""}`,
              e.old_content && e.old_content !== e.new_content ? h("div", { class: "old" }, h("del", { text: e.old_content })) : null,
              e.new_content ? h("div", { class: "new", text: e.new_content }) : null,
              e.related_fact_id
                ? h("div", {}, "related: ", byId.has(e.related_fact_id) ? h("button", { type: "button", class: "linkish", text: byId.get(e.related_fact_id).content, onclick: () => jump(e.related_fact_id) }) : h("code", { text: e.related_fact_id }))
                : null,
            ),
          ),
        ),
      );
    } catch (err) {
      showError(err);
    }
  }
}
