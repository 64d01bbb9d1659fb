"""Rate limits, quotas and per-tenant concurrency caps (the `limits` library, Redis or memory)."""
