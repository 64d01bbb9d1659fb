// Users, then the chosen user's sessions with their counts and activity (each session's
// statistics are fetched for the rows on screen only, a few at a time).
import { enc, get } from "../api.js";
import { ago, fill, fmtTime, h, num, pool } from "../dom.js";
import { remember, say, showError, userLinks } from "../shell.js";

const PAGE = 50;

export async function renderUsers(main, { params, signal }) {
  const chosen = params.get("user");
  const usersBody = h("tbody");
  const more = h("button", { type: "button", class: "quiet", text: "More users", hidden: true });
  const usersTable = h(
    "table",
    { class: "grid" },
    h("caption", { text: "Users of this tenant, by id" }),
    h("thead", {}, h("tr", {}, ["User", "Sessions", "Last activity", "Created"].map((t) => h("th", { scope: "col", text: t })))),
    usersBody,
  );
  const sessionsBox = h("section", { class: "card sessions", "aria-labelledby": "sessions-title" });
  main.append(
    h("h2", { text: "Users & sessions" }),
    h("div", { class: "split" }, h("section", { class: "card users", "aria-label": "Users" }, h("div", { class: "scroll-x" }, usersTable), more), sessionsBox),
  );

  let cursor = null;
  async function loadUsers() {
    const page = await get("/v1/users", { limit: PAGE, cursor }, { signal });
    const rows = page.items.map((u) => {
      const link = h("a", { href: `#/users?user=${enc(u.user_id)}`, text: u.user_id });
      if (u.user_id === chosen) link.setAttribute("aria-current", "true");
      const cells = { sessions: h("td", { class: "n", text: "…" }), last: h("td", { text: "…" }) };
      usersBody.append(
        h("tr", { class: u.user_id === chosen ? "current" : "", dataset: { user: u.user_id } }, h("th", { scope: "row" }, link), cells.sessions, cells.last, h("td", { text: fmtTime(u.created_at) })),
      );
      return { u, cells };
    });
    if (!page.items.length && !cursor) usersBody.append(h("tr", {}, h("td", { colspan: 4, text: "No users yet." })));
    cursor = page.next_cursor;
    more.hidden = !cursor;
    // Per row, one page of the user's sessions: how many (100+ past one page) and the newest write.
    await pool(rows, 4, async ({ u, cells }) => {
      const sessions = await get("/v1/sessions", { user_id: u.user_id, limit: 100 }, { signal });
      cells.sessions.textContent = `${sessions.items.length}${sessions.next_cursor ? "+" : ""}`;
      const last = sessions.items.reduce((a, x) => (x.updated_at > a ? x.updated_at : a), u.updated_at);
      fill(cells.last, h("time", { datetime: last, title: fmtTime(last, true), text: ago(last) }));
    });
  }
  more.addEventListener("click", () => loadUsers().catch(showError));
  if (!chosen) {
    sessionsBox.append(h("h3", { id: "sessions-title", text: "Sessions" }), h("p", { class: "muted", text: "Choose a user to see their sessions." }));
    await loadUsers();
    return;
  }
  remember({ user: chosen });
  await Promise.all([loadUsers(), renderSessions(sessionsBox, chosen, signal)]);
}

async function renderSessions(box, user, signal) {
  const body = h("tbody");
  const more = h("button", { type: "button", class: "quiet", text: "More sessions", hidden: true });
  const total = h("span", { class: "muted" });
  box.append(
    h("h3", { id: "sessions-title" }, `Sessions of ${user} `, total),
    h("p", {}, userLinks(user)),
    h(
      "div",
      { class: "scroll-x" },
      h(
        "table",
        { class: "grid", id: "sessions" },
        h("caption", { class: "sr-only", text: `Sessions of ${user}, newest first` }),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["Session", "Messages", "Tokens", "Summaries", "Last message", "Indexing", "Open"].map((t) => h("th", { scope: "col", text: t })),
          ),
        ),
        body,
      ),
    ),
    more,
  );
  let cursor = null;
  let shown = 0;
  async function load() {
    const page = await get("/v1/sessions", { user_id: user, limit: PAGE, cursor }, { signal });
    const rows = page.items.map((s) => {
      const cells = {
        messages: h("td", { class: "n", text: "…" }),
        tokens: h("td", { class: "n", text: "…" }),
        summaries: h("td", { class: "n", text: "…" }),
        last: h("td", { text: "…" }),
        indexing: h("td", { text: "…" }),
      };
      body.append(
        h(
          "tr",
          { dataset: { session: s.session_id } },
          h("th", { scope: "row" }, h("a", { href: `#/timeline/${enc(s.session_id)}`, text: s.session_id }), s.ended_at ? h("span", { class: "chip", text: "ended" }) : null),
          cells.messages,
          cells.tokens,
          cells.summaries,
          cells.last,
          cells.indexing,
          h("td", { class: "links" }, h("a", { href: `#/timeline/${enc(s.session_id)}`, text: "timeline", "aria-label": `timeline of ${s.session_id}` }), h("a", { href: `#/memory/${enc(s.session_id)}`, text: "memory", "aria-label": `memory of ${s.session_id}` })),
        ),
      );
      return { s, cells };
    });
    shown += page.items.length;
    total.textContent = `(${shown}${page.next_cursor ? "+" : ""})`;
    if (!shown) body.append(h("tr", {}, h("td", { colspan: 7, text: "No sessions." })));
    cursor = page.next_cursor;
    more.hidden = !cursor;
    say(`${shown} sessions of ${user}`);
    await pool(rows, 4, async ({ s, cells }) => {
      const st = await get(`/v1/sessions/${enc(s.session_id)}/stats`, {}, { signal });
      cells.messages.textContent = num(st.message_count);
      cells.tokens.textContent = num(st.token_count);
      cells.summaries.textContent = num(st.summaries);
      fill(cells.last, st.last_message_at ? h("time", { datetime: st.last_message_at, title: fmtTime(st.last_message_at, true), text: ago(st.last_message_at) }) : "never");
      const state = st.failed_messages ? "failed" : st.pending_messages ? "pending" : "ok";
      fill(cells.indexing, 
        h("span", { class: `chip ${state}`, text: state === "ok" ? "indexed" : state === "pending" ? `${num(st.pending_messages)} pending` : `${num(st.failed_messages)} failed` }),
      );
    });
  }
  more.addEventListener("click", () => load().catch(showError));
  await load();
}
