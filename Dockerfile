# syntax=docker/dockerfile:1
# Engram API image: python:3.11-slim, non-root, `engram serve` on 0.0.0.0:8000 with auth on.
#   docker build -t engram .
#   docker compose up          (PostgreSQL+pgvector, Redis and the API; see README.md)

# --- build: install the project and its dependencies into a virtualenv -------------------------
FROM python:3.11-slim AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1

RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH

WORKDIR /app
# Dependencies change less often than the code: build metadata first, then the package.
COPY pyproject.toml README.md ./
COPY app ./app
# The generated Python client: the MCP tools call the REST API through it.
COPY openapi/clients/python ./openapi/clients/python
# The CPU build of PyTorch (only used once, to export the local model to ONNX): PyPI's default
# wheel is a multi-GB CUDA build.
RUN pip install --no-cache-dir --index-url https://download.pytorch.org/whl/cpu torch==2.13.0 \
    && pip install --no-cache-dir . ./openapi/clients/python

# --- runtime -------------------------------------------------------------------------------------
FROM python:3.11-slim AS runtime

LABEL org.opencontainers.image.title="engram" \
      org.opencontainers.image.description="A memory service for AI agents over PostgreSQL + pgvector" \
      org.opencontainers.image.licenses="Apache-2.0"

RUN groupadd --system --gid 10001 engram \
    && useradd --system --uid 10001 --gid engram --home-dir /home/engram --create-home \
       --shell /usr/sbin/nologin engram \
    && mkdir -p /data \
    && chown engram:engram /data

COPY --from=build /opt/venv /opt/venv

# `engram serve` and `engram migrate` find `migrations/` in the working directory.
WORKDIR /app
COPY --chown=root:root alembic.ini ./
COPY --chown=root:root migrations ./migrations

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    ENGRAM_HOST=0.0.0.0 \
    ENGRAM_PORT=8000 \
    ENGRAM_AUTH=on \
    ENGRAM_DATA_DIR=/data

USER engram

EXPOSE 8000

# No curl in slim: probe /healthz with the standard library.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('ENGRAM_PORT', '8000'), timeout=2)"

# uvicorn drains in-flight requests on SIGTERM (up to 30 s) before the process exits.
STOPSIGNAL SIGTERM
CMD ["engram", "serve"]
