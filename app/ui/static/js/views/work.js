// Derived work: the backlog and lag of indexing, the items that failed for good with their
// errors, and a retry for one item or for all of a scope; for a user or a session, the summary
// and extraction jobs of its sessions, each failed one with its error and a retry.
import { enc, get, post } from "../api.js";
import { clear, dl, field, fill, fmtTime, h, num, pool } from "../dom.js";
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
    h("p", { class: "muted", text: `For ${scopeText}: the messages' embeddings${scope.user_id || scope.session_id ? ", and each session's summaries and fact extraction" : ""}.` }),
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
        ["Refining", st.refining ? `${num(st.refining)} (searchable; their sentences' vectors still to come)` : "none"],
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

  // Summary and extraction jobs of the scope's sessions (a user's: its newest 100).
  const jobsBody = h("tbody");
  if (scope.user_id || scope.session_id) {
    main.append(
      h(
        "section",
        { class: "card", "aria-labelledby": "jobs-title" },
        h("h3", { id: "jobs-title", text: "Summaries and fact extraction" }),
        h(
          "div",
          { class: "scroll-x" },
          h(
            "table",
            { class: "grid", id: "jobs" },
            h("caption", { class: "sr-only", text: "Each session's summary and extraction progress and jobs" }),
            h("thead", {}, h("tr", {}, ["Session", "Summarised", "Summary job", "Extracted", "Extraction job"].map((t) => h("th", { scope: "col", text: t })))),
            jobsBody,
          ),
        ),
      ),
    );
  }

  async function loadJobs() {
    if (!scope.user_id && !scope.session_id) return;
    const ids = scope.session_id ? [scope.session_id] : (await get("/v1/sessions", { user_id: scope.user_id, limit: 100 }, { signal })).items.map((x) => x.session_id);
    const rows = ids.map((sid) => {
      const cells = [h("td", { text: "…" }), h("td", { text: "…" }), h("td", { text: "…" }), h("td", { text: "…" })];
      jobsBody.append(h("tr", { dataset: { session: sid } }, h("th", { scope: "row" }, h("a", { href: `#/timeline/${enc(sid)}`, text: sid })), cells));
      return { sid, cells };
    });
    if (!rows.length) jobsBody.append(h("tr", {}, h("td", { colspan: 5, text: "No sessions." })));
    const job = (j, what, sid, path) => {
      if (!j) return h("span", { class: "chip ok", text: "idle" });
      if (j.status !== "failed") return h("span", { class: "chip pending", text: j.status });
      const btn = h("button", { type: "button", text: "Retry", "aria-label": `Retry the ${what} of ${sid}` });
      btn.addEventListener("click", async () => {
        btn.disabled = true;
        try {
          await post(`/v1/sessions/${enc(sid)}/${path}`);
          say(`The ${what} of ${sid} is queued again.`);
          clear(jobsBody);
          await loadJobs();
        } catch (err) {
          showError(err);
          btn.disabled = false;
        }
      });
      return h("span", {}, h("span", { class: "chip failed", text: `failed after ${j.attempts} attempts` }), " ", h("code", { class: "err", text: j.error || "" }), " ", btn);
    };
    await pool(rows, 4, async ({ sid, cells }) => {
      const [su, ex] = await Promise.all([get(`/v1/sessions/${enc(sid)}/summary`, {}, { signal }), get(`/v1/sessions/${enc(sid)}/extraction`, {}, { signal })]);
      fill(cells[0], `#${su.summarized_seq} of #${su.last_seq}`);
      fill(cells[1], job(su.job, "summary", sid, "summarize"));
      fill(cells[2], `#${ex.extracted_seq} of #${ex.last_seq}`);
      fill(cells[3], job(ex.job, "extraction", sid, "extract"));
    });
  }

  retryAll.addEventListener("click", () => retry({ ...scope }, retryAll));
  more.addEventListener("click", () => loadFailed(false).catch(showError));
  await Promise.all([reload(), loadJobs()]);
}
