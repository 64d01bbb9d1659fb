"""User facts: extraction and reconciliation (worker), the facts API, forgetting."""
