// Sign-in: a tenant API key, or the admin token and then a tenant (the UI mints a key for that
// tenant, named for this browser session, and revokes it at sign-out).
import { ApiError, allPages, get, request, setAuth } from "../api.js";
import { clear, field, h } from "../dom.js";

/** The name of the keys the UI creates from the admin token (one per page load). */
export const KEY_NAME = "memory inspector (browser session)";

export function renderLogin(main, { message, onDone }) {
  clear(main);
  const secret = h("input", { type: "password", name: "secret", autocomplete: "off", spellcheck: "false", required: true });
  const [secretField] = field("API key or admin token", secret, "Kept in this browser tab only (sessionStorage) and sent to this server alone.");
  const error = h("p", { class: "error", id: "login-error", role: "alert" });
  const submit = h("button", { type: "submit", text: "Sign in" });
  const form = h(
    "form",
    { class: "card login", "aria-labelledby": "login-title", onsubmit: (e) => signIn(e) },
    h("h2", { id: "login-title", text: "Sign in" }),
    h("p", { text: "Paste a tenant API key (egm_…) to inspect that tenant's memory, or the admin token to pick a tenant." }),
    message ? h("p", { class: "notice", text: message }) : null,
    secretField,
    error,
    h("div", { class: "row" }, submit),
  );
  main.append(form);
  secret.focus();

  async function signIn(e) {
    e.preventDefault();
    error.textContent = "";
    submit.disabled = true;
    const value = secret.value.trim();
    try {
      try {
        await get("/v1/users", { limit: 1 }, { token: value });
        setAuth({ mode: "key", key: value });
        onDone();
        return;
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 401) throw err;
      }
      let keys;
      try {
        keys = await allPages("/v1/admin/keys", {}, { token: value, max: 5000 });
      } catch (err) {
        if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
          throw new Error("This is neither a valid API key nor the admin token (401: the API key is unknown or revoked).");
        }
        throw err;
      }
      pickTenant(value, keys);
    } catch (err) {
      error.textContent = err.message;
      secret.setAttribute("aria-invalid", "true");
      secret.setAttribute("aria-describedby", `${secret.id}-hint login-error`);
      secret.focus();
    } finally {
      submit.disabled = false;
    }
  }

  function pickTenant(admin, keys) {
    const tenants = [...new Set(keys.filter((k) => !k.revoked_at).map((k) => k.tenant_id))].sort();
    clear(main);
    const select = h("select", { name: "tenant" }, tenants.map((t) => h("option", { value: t, text: t })));
    const other = h("input", { type: "text", name: "other", autocomplete: "off", spellcheck: "false" });
    const [selectField] = field("Tenant", select);
    const [otherField] = field("…or another tenant id", other, "A key for it is created for this browser session and revoked when you sign out.");
    const err = h("p", { class: "error", role: "alert" });
    const form = h(
      "form",
      {
        class: "card login",
        "aria-labelledby": "tenant-title",
        onsubmit: async (e) => {
          e.preventDefault();
          const tenant = other.value.trim() || select.value;
          if (!tenant) {
            err.textContent = "Choose a tenant.";
            return;
          }
          try {
            const created = await request("POST", "/v1/admin/keys", {
              token: admin,
              body: { tenant_id: tenant, name: KEY_NAME },
            });
            setAuth({ mode: "admin", key: created.key, keyId: created.key_id, tenant, admin });
            onDone();
          } catch (e2) {
            err.textContent = e2.message;
          }
        },
      },
      h("h2", { id: "tenant-title", text: "Choose a tenant" }),
      h("p", { text: `The admin token is valid. ${tenants.length} tenant(s) have keys.` }),
      tenants.length ? selectField : null,
      otherField,
      err,
      h("div", { class: "row" }, h("button", { type: "submit", text: "Open tenant" })),
    );
    main.append(form);
    (tenants.length ? select : other).focus();
  }
}
