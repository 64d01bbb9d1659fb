// A virtualised listbox: only the rows in view (plus a margin) are in the DOM, so a session of
// any length renders as fast as a short one. Keyboard: arrows, Page Up/Down, Home/End; the
// active row is announced through aria-activedescendant.
import { h } from "./dom.js";

export class VirtualList {
  constructor({ label, rowHeight, idPrefix, renderRow, onSelect }) {
    this.rowHeight = rowHeight;
    this.idPrefix = idPrefix;
    this.renderRow = renderRow; // (index, element) -> fills the row element
    this.onSelect = onSelect;
    this.count = 0;
    this.active = -1;
    this.spacer = h("div", { class: "vspacer" });
    this.el = h("div", { class: "vlist", role: "listbox", tabindex: "0", "aria-label": label }, this.spacer);
    this.rows = new Map();
    this.el.addEventListener("scroll", () => this.paint(), { passive: true });
    this.el.addEventListener("keydown", (e) => this.key(e));
    this.el.addEventListener("click", (e) => {
      const row = e.target.closest("[data-index]");
      if (row) this.select(Number(row.dataset.index));
    });
    new ResizeObserver(() => this.paint()).observe(this.el);
  }

  setCount(n) {
    this.count = n;
    this.spacer.style.height = `${n * this.rowHeight}px`;
    this.paint(true);
  }

  /** Re-render the rows on screen (new data arrived for them). */
  refresh() {
    this.paint(true);
  }

  paint(force = false) {
    const top = this.el.scrollTop;
    const height = this.el.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / this.rowHeight) - 8);
    const last = Math.min(this.count - 1, Math.ceil((top + height) / this.rowHeight) + 8);
    for (const [i, row] of this.rows) {
      if (i < first || i > last || force) {
        if (i < first || i > last) {
          row.remove();
          this.rows.delete(i);
        }
      }
    }
    for (let i = first; i <= last; i++) {
      let row = this.rows.get(i);
      const fresh = !row;
      if (fresh) {
        row = h("div", { class: "vrow", role: "option", id: `${this.idPrefix}-${i}`, dataset: { index: String(i) } });
        row.style.transform = `translateY(${i * this.rowHeight}px)`;
        row.style.height = `${this.rowHeight}px`;
        this.rows.set(i, row);
        this.spacer.append(row);
      }
      if (fresh || force) {
        row.textContent = "";
        row.setAttribute("aria-selected", String(i === this.active));
        row.setAttribute("aria-posinset", String(i + 1));
        row.setAttribute("aria-setsize", String(this.count));
        this.renderRow(i, row);
      }
    }
  }

  scrollToIndex(i) {
    const top = i * this.rowHeight;
    const h2 = this.el.clientHeight;
    if (top < this.el.scrollTop) this.el.scrollTop = top;
    else if (top + this.rowHeight > this.el.scrollTop + h2) this.el.scrollTop = top + this.rowHeight - h2;
    this.paint();
  }

  select(i) {
    if (i < 0 || i >= this.count) return;
    const old = this.rows.get(this.active);
    if (old) old.setAttribute("aria-selected", "false");
    this.active = i;
    this.scrollToIndex(i);
    const row = this.rows.get(i);
    if (row) row.setAttribute("aria-selected", "true");
    this.el.setAttribute("aria-activedescendant", `${this.idPrefix}-${i}`);
    this.onSelect(i);
  }

  key(e) {
    const page = Math.max(1, Math.floor(this.el.clientHeight / this.rowHeight) - 1);
    const at = this.active < 0 ? -1 : this.active;
    const moves = { ArrowDown: at + 1, ArrowUp: at - 1, PageDown: at + page, PageUp: at - page, Home: 0, End: this.count - 1 };
    if (!(e.key in moves)) return;
    e.preventDefault();
    this.select(Math.max(0, Math.min(this.count - 1, moves[e.key])));
  }
}
