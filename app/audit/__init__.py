"""The audit trail: per tenant, opt-in. Who (API key) read or wrote what (operation, ids) of the
tenant's memory, when, and from where (client address); never the content itself.

`middleware` notes each request of an audited tenant, `writer` writes the notes in batches,
`service` reads them back (admin API, JSON Lines export) and holds the settings, `retention`
removes what is older than the tenant's retention.
"""
