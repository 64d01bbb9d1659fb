// Derived work: the backlog and lag of indexing, the items that failed for good with their
// errors, and a retry for one item or for all of a scope. (A session's summary and extraction
// jobs, with their own retry, are on its timeline.)
import { enc, get, post } from "../api.js";
import { clear, dl, field, fill, fmtTime, h, num } from "../dom.js";
import { go, say, showError } from "../shell.js";

const PAGE = 50;

export async function renderWork(main, { params, signal }) {
  const scope = {};
  if (params.get("user_id")) scope.user_id = params.get("user_id");
  if (params.get("session_id")) scope.session_id = params.get("session_id");
  const userId = h("input", { type: "text", name: "user_id", value: scope.user_id || "", autocomplete: "off", spellcheck: "false" });
  const sessionId = h("input", { type: "text", name: "session_id", value: scope.session_id || "", autocomplete: "off", spellcheck: "false" });
  const form = h(
    "form",
    {
      class: "controls card",
      "aria-label": "Scope",
      onsubmit: (e) => {
        e.preventDefault();
        const q = new URLSearchParams({ user_id: userId.value.trim(), session_id: sessionId.value.trim() });
        for (const [k, v] of [...q]) if (!v) q.delete(k);
        go(`#/work${q.toString() ? `?${q}` : ""}`);
      },
    },
    field("User id", userId, "Empty: the whole tenant.")[0],
    field("Session id", sessionId)[0],
    h("div", { class: "row" }, h("button", { type: "submit", text: "Show" })),
  );
  const statusBox = h("section", { class: "card", "aria-labelledby": "backlog-title", id: "backlog" });
  const failedBody = h("tbody");
  const more = h("button", { type: "button", class: "quiet", text: "More failed items", hidden: true });
  const retryAll = h("button", { type: "button", text: "Retry all failed in this scope", hidden: true });
  const scopeText = scope.session_id ? `session ${scope.session_id}` : scope.user_id ? `user ${scope.user_id}` : "the whole tenant";
  main.append(
    h("h2", { text: "Derived work" }),
    h("p", { class: "muted", text: `Embeddings of messages, for ${scopeText}.` }),
    form,
    statusBox,
    h(
      "section",
      { class: "card", "aria-labelledby": "failed-title" },
      h("h3", { id: "failed-title", text: "Failed items" }),
      retryAll,
      h(
        "div",
        { class: "scroll-x" },
        h(
          "table",
          { class: "grid", id: "failed" },
          h("caption", { class: "sr-only", text: "Messages whose embedding failed for good, oldest first" }),
          h("thead", {}, h("tr", {}, ["Message", "Attempts", "Failed at", "Error", "Retry"].map((t) => h("th", { scope: "col", text: t })))),
          failedBody,
        ),
      ),
      more,
    ),
  );

  let cursor = null;
  async function loadStatus() {
    const st = await get("/v1/indexing", scope, { signal });
    fill(statusBox, 
      h("h3", { id: "backlog-title", text: "Backlog and lag" }),
      dl([
        ["Pending", num(st.pending)],
        ["Failed", num(st.failed)],
        ["Lag", st.pending ? `${st.lag_seconds.toFixed(1)} s (the oldest pending item's age)` : "none"],
        st.indexed_seq !== null && st.indexed_seq !== undefined ? ["Indexed", `up to #${st.indexed_seq} of #${st.last_seq}`] : null,
      ]),
      h("button", { type: "button", class: "quiet", text: "Refresh", onclick: () => reload().catch(showError) }),
    );
    retryAll.hidden = !st.failed;
    return st;
  }

  async function loadFailed(reset) {
    if (reset) {
      cursor = null;
      clear(failedBody);
    }
    const page = await get("/v1/indexing/failed", { ...scope, limit: PAGE, cursor }, { signal });
    for (const f of page.items) {
      const btn = h("button", { type: "button", text: "Retry", "aria-label": `Retry ${f.session_id} #${f.seq}` });
      btn.addEventListener("click", () => retry({ message_ids: [f.message_id] }, btn));
      failedBody.append(
        h(
          "tr",
          { dataset: { message: f.message_id } },
          h("th", { scope: "row" }, h("a", { href: `#/timeline/${enc(f.session_id)}?seq=${f.seq}`, text: `${f.session_id} #${f.seq}` }), h("div", { class: "muted", text: f.user_id })),
          h("td", { class: "n", text: num(f.attempts) }),
          h("td", { text: fmtTime(f.failed_at, true) }),
          h("td", {}, h("code", { class: "err", text: f.error || "—" })),
          h("td", {}, btn),
        ),
      );
    }
    if (reset && !page.items.length) failedBody.append(h("tr", {}, h("td", { colspan: 5, text: "Nothing failed." })));
    cursor = page.next_cursor;
    more.hidden = !cursor;
  }

  async function reload() {
    const st = await loadStatus();
    await loadFailed(true);
    return st;
  }

  async function retry(body, btn) {
    btn.disabled = true;
    try {
      const r = await post("/v1/indexing/retry", body);
      say(`Retried ${r.retried} item(s): back in the queue.`);
      // Follow the queue until the worker has taken them (or a minute has passed).
      for (let i = 0; i < 60; i++) {
        const st = await reload();
        if (!st.pending) break;
        await new Promise((res) => setTimeout(res, 1000));
        if (signal.aborted) return;
      }
      say(`Retried ${r.retried} item(s); the queue is drained.`);
    } catch (err) {
      showError(err);
    } finally {
      btn.disabled = false;
    }
  }

  retryAll.addEventListener("click", () => retry({ ...scope }, retryAll));
  more.addEventListener("click", () => loadFailed(false).catch(showError));
  await reload();
}
