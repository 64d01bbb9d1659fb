"""Which tracing a process runs: none, or OpenTelemetry when ENGRAM_OTEL=on (the extra, imported only
then). Apart from tracing.py, which otel.py imports for the protocol, so that neither imports the
other back."""

from __future__ import annotations

from app.config import Settings, Switch
from app.telemetry.tracing import NoTracing, Tracing


def make_tracing(settings: Settings) -> Tracing:
    if settings.otel is Switch.off:
        return NoTracing()
    from app.telemetry.otel import OtelTracing  # the extra: imported only when on

    return OtelTracing.from_settings(settings)
