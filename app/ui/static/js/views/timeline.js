// A session's timeline: every message by seq and time (virtualised), the summaries as spans
// over the turns they cover, the facts learnt from each turn, and how far indexing, fact
// extraction and summarising have got. The first screen needs one page of messages only; the
// rest, the summaries and the facts arrive behind it.
import { allPages, enc, get, post } from "../api.js";
import { dl, fill, fmtTime, h, num } from "../dom.js";
import { askFor, remember, say, showError } from "../shell.js";
import { VirtualList } from "../virtual.js";

const FIRST_PAGE = 100;
const PAGE = 1000;
const ROW = 56;

export async function renderTimeline(main, { arg, params, signal }) {
  if (!arg) {
    main.append(h("h2", { text: "Session timeline" }));
    askFor(main, { label: "Session id", hint: "Or pick a session under Users & sessions.", view: "timeline" });
    return;
  }
  const sid = arg;
  const S = {
    messages: [],
    total: 0,
    summaries: [], // oldest first
    factsByMessage: new Map(),
    failed: new Set(),
    indexing: null,
    extraction: null,
    summary: null,
    done: false,
  };
  let target = params.get("seq") ? { seq: Number(params.get("seq")) } : params.get("msg") ? { id: params.get("msg") } : null;

  const title = h("h2", {}, "Timeline of ", h("code", { text: sid }));
  const userLine = h("p", { class: "muted" });
  const stateBox = h("section", { class: "states", "aria-label": "Derived work of this session" });
  const summariesBox = h("details", { class: "summaries card" }, h("summary", { text: "Summaries" }));
  const detail = h("aside", { class: "card detail", "aria-label": "The selected message", tabindex: "-1" }, h("p", { class: "muted", text: "Select a message (click, or arrow keys in the list)." }));
  const progress = h("p", { class: "muted progress", "aria-live": "polite" });
  const list = new VirtualList({
    label: `Messages of ${sid} by seq`,
    rowHeight: ROW,
    idPrefix: "msg",
    renderRow: (i, row) => renderRow(i, row),
    onSelect: (i) => showDetail(i),
  });
  main.append(
    title,
    userLine,
    stateBox,
    h("div", { class: "timeline" }, h("div", { class: "tl-main" }, list.el, progress), h("div", { class: "tl-side" }, detail, summariesBox)),
  );

  // --- the first screen: the session and its first page of messages ---------------------------
  const [session, first] = await Promise.all([
    get(`/v1/sessions/${enc(sid)}`, {}, { signal }),
    get(`/v1/sessions/${enc(sid)}/messages`, { limit: FIRST_PAGE }, { signal }),
  ]);
  remember({ session: sid, user: session.user_id });
  fill(userLine, 
    "User ",
    h("a", { href: `#/users?user=${enc(session.user_id)}`, text: session.user_id }),
    ` · created ${fmtTime(session.created_at)}`,
    session.ended_at ? ` · ended ${fmtTime(session.ended_at)}` : "",
    " · ",
    h("a", { href: `#/memory/${enc(sid)}`, text: "what the agent sees" }),
  );
  S.messages = first.items;
  S.total = Math.max(first.items.length, first.next_cursor ? session.last_seq : first.items.length);
  list.setCount(S.total);
  requestAnimationFrame(() => {
    performance.measure("engram:timeline-first-render", "engram:route-start");
    main.dataset.rendered = "true";
  });

  // --- behind it: the state, summaries, facts and the remaining pages --------------------------
  const user = session.user_id;
  refreshStates().catch(showError);
  allPages(`/v1/sessions/${enc(sid)}/summaries`, {}, { limit: 100, signal })
    .then((items) => {
      S.summaries = items.sort((a, b) => a.from_seq - b.from_seq);
      renderSummaries();
      list.refresh();
    })
    .catch(showError);
  allPages(`/v1/users/${enc(user)}/facts`, { include_invalid: true }, { signal, max: 10000 })
    .then((facts) => {
      for (const f of facts) {
        for (const m of f.source_message_ids || []) {
          if (!S.factsByMessage.has(m)) S.factsByMessage.set(m, []);
          S.factsByMessage.get(m).push(f);
        }
      }
      list.refresh();
      if (list.active >= 0) showDetail(list.active);
    })
    .catch(showError);
  loadRest(first.next_cursor).catch(showError);
  findTarget();

  async function loadRest(cursor) {
    while (cursor) {
      progress.textContent = `Loaded ${num(S.messages.length)} of about ${num(S.total)} messages…`;
      const page = await get(`/v1/sessions/${enc(sid)}/messages`, { limit: PAGE, cursor }, { signal });
      S.messages.push(...page.items);
      cursor = page.next_cursor;
      if (!cursor || S.messages.length > S.total) {
        S.total = cursor ? S.messages.length + 1 : S.messages.length;
        list.setCount(S.total);
      } else list.refresh();
      findTarget();
    }
    S.done = true;
    S.total = S.messages.length;
    list.setCount(S.total);
    progress.textContent = `${num(S.messages.length)} messages.`;
    findTarget();
  }

  function findTarget() {
    if (!target) return;
    const i = target.seq !== undefined ? indexOfSeq(target.seq) : S.messages.findIndex((m) => m.message_id === target.id);
    if (i >= 0) {
      target = null;
      list.select(i);
      list.el.focus({ preventScroll: true });
    } else if (S.done) {
      say(`That message is not in ${sid} any more.`);
      target = null;
    }
  }

  function indexOfSeq(seq) {
    let lo = 0;
    let hi = S.messages.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const s = S.messages[mid].seq;
      if (s === seq) return mid;
      if (s < seq) lo = mid + 1;
      else hi = mid - 1;
    }
    // a summary's from_seq may be a deleted message: the first one after it
    return S.done && lo < S.messages.length ? lo : -1;
  }

  function summaryOf(seq) {
    let lo = 0;
    let hi = S.summaries.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const s = S.summaries[mid];
      if (seq < s.from_seq) hi = mid - 1;
      else if (seq > s.to_seq) lo = mid + 1;
      else return mid;
    }
    return -1;
  }

  function indexState(m) {
    if (S.failed.has(m.message_id)) return "failed";
    if (S.indexing && m.seq <= S.indexing.indexed_seq) return "indexed";
    return S.indexing ? "pending" : "";
  }

  function renderRow(i, row) {
    const m = S.messages[i];
    if (!m) {
      row.append(h("span", { class: "muted", text: "Loading…" }));
      return;
    }
    const k = summaryOf(m.seq);
    const band = h("span", { class: `band${k >= 0 ? ` s${k % 2}` : ""}`, "aria-hidden": "true" });
    const facts = S.factsByMessage.get(m.message_id) || [];
    const idx = indexState(m);
    const extracted = S.extraction && m.seq <= S.extraction.extracted_seq;
    const startsSummary = k >= 0 && (i === 0 || summaryOf(S.messages[i - 1].seq) !== k);
    row.append(
      band,
      h(
        "div",
        { class: "vbody" },
        h(
          "div",
          { class: "vmeta" },
          h("span", { class: "seq", text: `#${m.seq}` }),
          h("time", { datetime: m.created_at, text: fmtTime(m.created_at) }),
          h("span", { class: `role r-${m.role}`, text: m.name ? `${m.role} (${m.name})` : m.role }),
          startsSummary ? h("span", { class: "chip summ", text: `summary ${k + 1}: #${S.summaries[k].from_seq}–${S.summaries[k].to_seq}` }) : null,
          facts.length ? h("span", { class: "chip fact", text: `${facts.length} fact${facts.length > 1 ? "s" : ""}` }) : null,
          idx === "failed" ? h("span", { class: "chip failed", text: "index failed" }) : idx === "pending" ? h("span", { class: "chip pending", text: "not indexed" }) : null,
          m.role === "user" && S.extraction && !extracted ? h("span", { class: "chip pending", text: "not extracted" }) : null,
        ),
        h("div", { class: "vtext", text: m.content }),
      ),
    );
  }

  function showDetail(i) {
    const m = S.messages[i];
    if (!m) return;
    const k = summaryOf(m.seq);
    const facts = S.factsByMessage.get(m.message_id) || [];
    fill(detail, 
      h("h3", { text: `Message #${m.seq}` }),
      dl([
        ["Time", fmtTime(m.created_at, true)],
        ["Role", m.name ? `${m.role} (${m.name})` : m.role],
        ["Tokens", num(m.token_count)],
        ["Indexed", { indexed: "yes: searchable by meaning", pending: "not yet", failed: "failed (see Derived work)", "": "…" }[indexState(m)]],
        m.role === "user" ? ["Facts extracted", S.extraction ? (m.seq <= S.extraction.extracted_seq ? "yes" : "not yet") : "…"] : null,
        ["Summarised", k >= 0 ? `in summary ${k + 1} (#${S.summaries[k].from_seq}–${S.summaries[k].to_seq})` : "not yet"],
        ["Id", h("code", { text: m.message_id })],
        Object.keys(m.metadata || {}).length ? ["Metadata", h("code", { text: JSON.stringify(m.metadata) })] : null,
      ]),
      h("p", { class: "content", text: m.content }),
      h("h4", { text: `Facts learnt from this turn (${facts.length})` }),
      facts.length
        ? h(
            "ul",
            { class: "facts-from" },
            facts.map((f) =>
              h(
                "li",
                {},
                h("a", { href: `#/facts/${enc(session.user_id)}?fact=${enc(f.fact_id)}`, text: f.content }),
                " ",
                h("span", { class: `chip k-${f.kind}`, text: f.kind }),
                f.invalid_at ? h("span", { class: "chip ended", text: `ended ${fmtTime(f.invalid_at)}` }) : h("span", { class: "chip ok", text: "current" }),
              ),
            ),
          )
        : h("p", { class: "muted", text: "None." }),
      k >= 0 ? [h("h4", { text: `Summary ${k + 1}` }), h("p", { class: "content", text: S.summaries[k].content })] : null,
    );
  }

  function renderSummaries() {
    const head = summariesBox.querySelector("summary");
    head.textContent = `Summaries (${S.summaries.length})`;
    fill(summariesBox, head);
    if (!S.summaries.length) summariesBox.append(h("p", { class: "muted", text: "No summary yet." }));
    summariesBox.append(
      h(
        "ol",
        {},
        S.summaries.map((s, k) =>
          h(
            "li",
            {},
            h("button", {
              type: "button",
              class: "linkish",
              text: `Summary ${k + 1}: #${s.from_seq}–${s.to_seq} (${s.message_count} messages, ${fmtTime(s.created_at)})`,
              onclick: () => {
                target = { seq: s.from_seq };
                findTarget();
              },
            }),
          ),
        ),
      ),
    );
  }

  async function refreshStates() {
    const [indexing, extraction, summary, failed] = await Promise.all([
      get("/v1/indexing", { session_id: sid }, { signal }),
      get(`/v1/sessions/${enc(sid)}/extraction`, {}, { signal }),
      get(`/v1/sessions/${enc(sid)}/summary`, {}, { signal }),
      allPages("/v1/indexing/failed", { session_id: sid }, { signal, max: 10000 }),
    ]);
    Object.assign(S, { indexing, extraction, summary });
    S.failed = new Set(failed.map((f) => f.message_id));
    renderStates();
    list.refresh();
    if (list.active >= 0) showDetail(list.active);
  }

  function job(j) {
    if (!j) return h("span", { class: "chip ok", text: "idle" });
    return h("span", { class: `chip ${j.status === "failed" ? "failed" : "pending"}`, text: j.status === "failed" ? `failed after ${j.attempts} attempts: ${j.error || ""}` : j.status });
  }

  function renderStates() {
    const { indexing: ix, extraction: ex, summary: su } = S;
    const act = (text, fn) =>
      h("button", {
        type: "button",
        text,
        onclick: async (e) => {
          e.target.disabled = true;
          try {
            await fn();
            say(`${text}: queued.`);
            await refreshStates();
          } catch (err) {
            showError(err);
          } finally {
            e.target.disabled = false;
          }
        },
      });
    fill(stateBox, 
      h(
        "div",
        { class: "state card" },
        h("h3", { text: "Indexing" }),
        h("p", {}, `Searchable by meaning up to #${ix.indexed_seq} of #${ix.last_seq}. `, `${num(ix.pending)} pending, ${num(ix.failed)} failed`, ix.pending ? `, oldest waiting ${ix.lag_seconds.toFixed(1)} s` : "", "."),
        ix.failed ? act("Retry failed indexing", () => post("/v1/indexing/retry", { session_id: sid })) : null,
      ),
      h(
        "div",
        { class: "state card" },
        h("h3", { text: "Fact extraction" }),
        h("p", {}, `Read up to #${ex.extracted_seq} of #${ex.last_seq}. Job: `, job(ex.job)),
        act(ex.job?.status === "failed" ? "Retry extraction" : "Extract now", () => post(`/v1/sessions/${enc(sid)}/extract`)),
      ),
      h(
        "div",
        { class: "state card" },
        h("h3", { text: "Summaries" }),
        h("p", {}, `Summarised up to #${su.summarized_seq} of #${su.last_seq}. Job: `, job(su.job)),
        act(su.job?.status === "failed" ? "Retry summary" : "Summarise now", () => post(`/v1/sessions/${enc(sid)}/summarize`)),
      ),
      h("button", { type: "button", class: "quiet", text: "Refresh state", onclick: () => refreshStates().catch(showError) }),
    );
  }
}
