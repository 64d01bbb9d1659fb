// The search playground: every field of POST /v1/search, and each hit with its score parts
// (whatever the `scores` object holds), the query's words highlighted, and a link to its turn.
import { enc, post } from "../api.js";
import { clear, field, fill, fmtTime, h, highlighted, localInputToIso, terms } from "../dom.js";
import { remember, say, showError } from "../shell.js";

const KINDS = ["messages", "summaries", "facts"];
const ROLES = ["user", "assistant", "system", "tool"];

export async function renderSearch(main, { params }) {
  const p = (k, d = "") => params.get(k) ?? d;
  const query = h("input", { type: "search", name: "query", value: p("query"), required: true, autocomplete: "off" });
  const mode = h("select", { name: "mode" }, ["hybrid", "semantic", "keyword"].map((m) => h("option", { value: m, text: m, selected: m === p("mode", "hybrid") })));
  const kindBoxes = KINDS.map((k) => h("input", { type: "checkbox", name: "kinds", value: k, checked: (p("kinds", "messages").split(",")).includes(k) }));
  const roleBoxes = ROLES.map((r) => h("input", { type: "checkbox", name: "roles", value: r, checked: p("roles").split(",").includes(r) }));
  const userId = h("input", { type: "text", name: "user_id", value: p("user_id"), autocomplete: "off", spellcheck: "false" });
  const sessionId = h("input", { type: "text", name: "session_id", value: p("session_id"), autocomplete: "off", spellcheck: "false" });
  const after = h("input", { type: "datetime-local", name: "created_after" });
  const before = h("input", { type: "datetime-local", name: "created_before" });
  const metadata = h("textarea", { name: "metadata", rows: "2", spellcheck: "false", placeholder: '{"channel": "web"}' });
  const limit = h("input", { type: "number", name: "limit", min: "1", max: "100", value: p("limit", "10") });
  const minScore = h("input", { type: "number", name: "min_score", min: "0", max: "1", step: "0.05" });
  const mmr = h("input", { type: "number", name: "mmr", min: "0", max: "1", step: "0.1" });
  const recency = h("input", { type: "number", name: "recency", min: "0", max: "1", step: "0.1" });
  const wait = h("input", { type: "number", name: "wait", min: "0", max: "10000", step: "500", value: "0" });
  const fieldset = (legend, boxes) =>
    h(
      "fieldset",
      { class: "checks" },
      h("legend", { text: legend }),
      boxes.map((b) => {
        b.id = `${b.name}-${b.value}`;
        return h("label", { for: b.id }, b, ` ${b.value}`);
      }),
    );
  const results = h("section", { class: "results", "aria-label": "Results", "aria-live": "polite" });
  const form = h(
    "form",
    { class: "controls card search-form", "aria-label": "Search", onsubmit: (e) => (e.preventDefault(), run()) },
    h("div", { class: "wide" }, field("Query", query)[0]),
    field("Mode", mode)[0],
    fieldset("Kinds", kindBoxes),
    fieldset("Roles (messages only)", roleBoxes),
    field("User id", userId)[0],
    field("Session id", sessionId)[0],
    field("Created after (UTC)", after)[0],
    field("Created before (UTC)", before)[0],
    h("div", { class: "wide" }, field("Metadata contains (JSON)", metadata)[0]),
    field("Limit", limit)[0],
    field("Min score", minScore)[0],
    field("Diversity (mmr)", mmr)[0],
    field("Recency weight", recency)[0],
    field("Wait for indexing (ms)", wait)[0],
    h("div", { class: "row wide" }, h("button", { type: "submit", text: "Search" })),
  );
  main.append(h("h2", { text: "Search playground" }), form, results);
  if (p("query")) await run();
  else query.focus();

  async function run() {
    const body = {
      query: query.value,
      mode: mode.value,
      kinds: kindBoxes.filter((b) => b.checked).map((b) => b.value),
      limit: Number(limit.value) || 10,
      filters: {},
    };
    if (!body.kinds.length) body.kinds = ["messages"];
    if (userId.value.trim()) body.user_id = userId.value.trim();
    if (sessionId.value.trim()) body.session_id = sessionId.value.trim();
    const roles = roleBoxes.filter((b) => b.checked).map((b) => b.value);
    if (roles.length) body.filters.roles = roles;
    if (after.value) body.filters.created_after = localInputToIso(after.value);
    if (before.value) body.filters.created_before = localInputToIso(before.value);
    if (metadata.value.trim()) {
      try {
        body.filters.metadata = JSON.parse(metadata.value);
      } catch {
        showError(new Error("Metadata must be a JSON object."));
        metadata.focus();
        return;
      }
    }
    if (minScore.value) body.min_score = Number(minScore.value);
    if (mmr.value) body.mmr = Number(mmr.value);
    if (recency.value) body.recency = { weight: Number(recency.value) };
    if (Number(wait.value)) body.wait_for_indexing_ms = Number(wait.value);
    if (body.user_id) remember({ user: body.user_id });
    const keep = new URLSearchParams({ query: body.query, mode: body.mode, kinds: body.kinds.join(","), user_id: body.user_id || "", session_id: body.session_id || "", roles: roles.join(",") });
    for (const [k, v] of [...keep]) if (!v) keep.delete(k);
    history.replaceState(null, "", `#/search?${keep}`);
    fill(results, h("p", { class: "muted", text: "Searching…" }));
    const started = performance.now();
    let found;
    try {
      found = await post("/v1/search", body);
    } catch (err) {
      clear(results);
      showError(err);
      return;
    }
    const ms = performance.now() - started;
    const words = terms(body.query);
    const ix = found.indexing || {};
    fill(results, 
      h("h3", { text: `${found.results.length} hit${found.results.length === 1 ? "" : "s"} (${found.mode}, ${ms.toFixed(0)} ms)` }),
      ix.complete === false ? h("p", { class: "notice", text: `${ix.pending} item(s) of this scope were still waiting for their embedding: found by words only until indexed.` }) : null,
      h("ol", { class: "hits" }, found.results.map((hit) => renderHit(hit, words))),
    );
    say(`${found.results.length} hits`);
  }
}

function turnLink(hit) {
  if (hit.kind === "facts") return hit.user_id ? h("a", { href: `#/facts/${enc(hit.user_id)}?fact=${enc(hit.id)}`, text: "open fact" }) : null;
  if (!hit.session_id) return null;
  const seq = hit.kind === "summaries" ? hit.metadata?.from_seq ?? hit.seq : hit.seq;
  const text = hit.kind === "summaries" ? "open its turns in the timeline" : "open turn in timeline";
  return h("a", { href: `#/timeline/${enc(hit.session_id)}?seq=${seq}`, text, "aria-label": `${text}: ${hit.session_id} #${seq}` });
}

function scoreParts(scores) {
  const parts = Object.entries(scores || {});
  return h(
    "dl",
    { class: "scores" },
    parts.map(([name, v]) => {
      const isNum = typeof v === "number";
      const bar = h("span", { class: "sbar" });
      if (isNum) bar.style.width = `${Math.max(0, Math.min(1, v)) * 100}%`;
      return [h("dt", { text: name }), h("dd", {}, h("span", { class: "strack", "aria-hidden": "true" }, isNum ? bar : null), h("span", { text: isNum ? v.toFixed(3) : v === null ? "—" : JSON.stringify(v) }))];
    }),
  );
}

function renderHit(hit, words) {
  const where =
    hit.kind === "facts"
      ? [hit.fact_kind ? `${hit.fact_kind}` : "fact", hit.subject ? ` · ${hit.subject}` : "", hit.importance !== undefined && hit.importance !== null ? ` · importance ${hit.importance}` : ""].join("")
      : hit.kind === "summaries"
        ? `${hit.session_id} · #${hit.metadata?.from_seq}–#${hit.metadata?.to_seq}`
        : `${hit.session_id} · #${hit.seq} · ${hit.role}${hit.name ? ` (${hit.name})` : ""}`;
  return h(
    "li",
    { class: "hit card" },
    h(
      "div",
      { class: "hit-head" },
      h("span", { class: `chip kind-${hit.kind}`, text: hit.kind }),
      h("strong", { class: "score", text: Number(hit.score).toFixed(3) }),
      h("span", { class: "muted", text: ` ${where} · ${fmtTime(hit.created_at)}` }),
    ),
    h("p", { class: "hit-text" }, highlighted(hit.content || "", words)),
    scoreParts(hit.scores),
    h("p", { class: "links" }, turnLink(hit)),
  );
}
