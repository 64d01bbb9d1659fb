// What the agent sees: GET /memory at a chosen budget and query, the context exactly as the
// agent gets it, what went in, and what was left out and why.
import { enc, get } from "../api.js";
import { dl, field, fmtTime, h, num } from "../dom.js";
import { askFor, go, remember } from "../shell.js";

// Why each `omitted` entry is left out; an entry the server adds later is shown as it is.
const WHY = {
  summary: (v) => (v ? "A summary exists but did not fit the budget: the conversation before the messages shown is missing from the prompt." : null),
  facts: (v) => (v ? `${num(v)} relevant fact${v > 1 ? "s" : ""} did not fit the budget (facts are spent after the summary, before the messages).` : null),
  unsummarized_messages: (v) =>
    v ? `${num(v)} message${v > 1 ? "s are" : " is"} neither shown nor covered by the summary shown: lost to this prompt (the newest messages that fit are kept; older ones stop at the first that does not fit).` : null,
};

export async function renderMemory(main, { arg, params, signal }) {
  main.append(h("h2", { text: "What the agent sees" }));
  if (!arg) {
    askFor(main, { label: "Session id", hint: "The memory context of a session, as an agent gets it each turn.", view: "memory" });
    return;
  }
  const sid = arg;
  const q = {
    max_tokens: params.get("max_tokens") || "2000",
    query: params.get("query") || "",
    last_n: params.get("last_n") || "",
  };
  const maxTokens = h("input", { type: "number", name: "max_tokens", min: "0", step: "50", value: q.max_tokens, required: true });
  const query = h("input", { type: "text", name: "query", value: q.query, autocomplete: "off" });
  const lastN = h("input", { type: "number", name: "last_n", min: "1", max: "10000", value: q.last_n });
  const form = h(
    "form",
    {
      class: "controls card",
      "aria-label": "Memory request",
      onsubmit: (e) => {
        e.preventDefault();
        const p = new URLSearchParams({ max_tokens: maxTokens.value, query: query.value, last_n: lastN.value });
        for (const [k, v] of [...p]) if (!v) p.delete(k);
        go(`#/memory/${enc(sid)}?${p}`);
      },
    },
    field("Token budget (max_tokens)", maxTokens)[0],
    field("Query (ranks the facts)", query, "What the next turn is about; empty: the newest user message.")[0],
    field("At most this many messages (last_n)", lastN)[0],
    h("div", { class: "row" }, h("button", { type: "submit", text: "Show memory" })),
  );
  main.append(h("p", {}, "Session ", h("a", { href: `#/timeline/${enc(sid)}`, text: sid })), form);

  const m = await get(`/v1/sessions/${enc(sid)}/memory`, { max_tokens: q.max_tokens, query: q.query || undefined, last_n: q.last_n || undefined }, { signal });
  remember({ session: sid, user: m.user_id });
  const used = m.max_tokens ? Math.min(100, (m.token_count / m.max_tokens) * 100) : 0;
  const fill = h("span", { class: "fill" });
  fill.style.width = `${used}%`;
  const reasons = Object.entries(m.omitted || {})
    .map(([k, v]) => (WHY[k] ? WHY[k](v) : v ? `${k}: ${JSON.stringify(v)}` : null))
    .filter(Boolean);
  const msgs = m.messages || [];
  const coveredTo = m.summary ? m.summary.to_seq : 0;
  const firstShown = msgs.length ? msgs[0].seq : m.last_seq + 1;

  main.append(
    h(
      "section",
      { class: "card", "aria-labelledby": "budget-title" },
      h("h3", { id: "budget-title", text: "Budget" }),
      h("div", { class: "meter", role: "img", "aria-label": `${m.token_count} of ${m.max_tokens} tokens used` }, fill),
      h("p", {}, `${num(m.token_count)} of ${num(m.max_tokens)} tokens: `, m.summary ? `the summary up to #${m.summary.to_seq}, ` : "no summary, ", `${(m.facts || []).length} facts, ${msgs.length} messages`, msgs.length ? ` (#${msgs[0].seq}–#${msgs[msgs.length - 1].seq})` : "", "."),
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "omitted-title", id: "omitted" },
      h("h3", { id: "omitted-title", text: "Left out, and why" }),
      reasons.length ? h("ul", {}, reasons.map((r) => h("li", { text: r }))) : h("p", { text: "Nothing: everything relevant fit the budget." }),
      firstShown > coveredTo + 1 && msgs.length
        ? h("p", {}, `Messages #${coveredTo + 1}–#${firstShown - 1} are not in this prompt. `, h("a", { href: `#/timeline/${enc(sid)}?seq=${coveredTo + 1}`, text: "See them in the timeline" }), ".")
        : null,
      m.summary && coveredTo ? h("p", { class: "muted", text: `Messages #1–#${coveredTo} stand in the prompt only through the summary.` }) : null,
    ),
    h(
      "div",
      { class: "split" },
      h(
        "section",
        { class: "card", "aria-labelledby": "ctx-title" },
        h("h3", { id: "ctx-title", text: "The context, as the agent gets it" }),
        h("pre", { class: "context", tabindex: "0", "aria-label": "Memory context", text: m.context || "(empty)" }),
      ),
      h(
        "section",
        { class: "card", "aria-labelledby": "parts-title" },
        h("h3", { id: "parts-title", text: "What went in" }),
        h("h4", { text: "Summary" }),
        m.summary ? dl([["Covers", `#${m.summary.from_seq}–#${m.summary.to_seq}`], ["Tokens", num(m.summary.token_count)], ["Written", fmtTime(m.summary.created_at)]]) : h("p", { class: "muted", text: "None." }),
        h("h4", { text: `Facts (${(m.facts || []).length})` }),
        (m.facts || []).length
          ? h(
              "ol",
              { class: "memfacts" },
              m.facts.map((f) =>
                h(
                  "li",
                  {},
                  h("a", { href: `#/facts/${enc(m.user_id)}?fact=${enc(f.fact_id)}`, text: f.content }),
                  " ",
                  h("span", { class: `chip k-${f.kind}`, text: f.kind }),
                  h("span", { class: "score", text: f.score === null || f.score === undefined ? " score: none yet" : ` score ${Number(f.score).toFixed(3)}` }),
                ),
              ),
            )
          : h("p", { class: "muted", text: "None." }),
        h("h4", { text: `Messages (${msgs.length})` }),
        msgs.length ? h("p", {}, `#${msgs[0].seq} to #${msgs[msgs.length - 1].seq}, the newest of the session.`) : h("p", { class: "muted", text: "None fit." }),
      ),
    ),
  );
}
