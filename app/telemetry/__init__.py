"""OpenTelemetry traces, optional (`pip install engram[otel]`, ENGRAM_OTEL=on).

`tracing` is what the rest of the app sees (a no-op unless enabled; it never imports
opentelemetry then); `otel` is the SDK side, imported only when tracing is on; `context` reads
the current W3C traceparent for rows of derived work, at the cost of a dict lookup when off.
"""
