# syntax=docker/dockerfile:1
# Engram API image: python:3.11-slim (pinned by digest), non-root, `engram serve` on 0.0.0.0:8000 with auth on.
#   docker build -t engram .
#   docker compose up          (PostgreSQL+pgvector, Redis and the API; see README.md)

# --- build: install the project and its dependencies into a virtualenv -------------------------
# Pinned by digest (python:3.11-slim's manifest list), in both stages: bump it deliberately, with
# the lock, never by a moving tag.
FROM python:3.11-slim@sha256:9c900dea9e8fb7e16277c179b555cc72d29a352dbc33cff48ad5a0412fd5bfc7 AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1

RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH

WORKDIR /app
# Dependencies change less often than the code: the lock first (every package at one version and
# hash, build backends included), then the project and its client without resolving anything.
# PyTorch's CPU build (only used once, to export the local model to ONNX) comes from its CPU
# index: PyPI's wheel is a multi-GB CUDA build. The lock lists the hashes of both.
COPY requirements.lock ./
RUN pip install --no-cache-dir --require-hashes \
        --extra-index-url https://download.pytorch.org/whl/cpu -r requirements.lock
COPY pyproject.toml README.md ./
COPY app ./app
# The generated Python client: the MCP tools call the REST API through it.
COPY openapi/clients/python ./openapi/clients/python
RUN pip install --no-cache-dir --no-deps --no-build-isolation . ./openapi/clients/python \
    && pip check
# Export the local model here, once, in every ONNX variant (~1 minute): the container starts with
# the model ready and carries no PyTorch, transformers or sentence-transformers, which only the
# export needs (the runtime is onnxruntime, the packaged tokenizer and the weights' file, checked
# with those imports blocked). ENGRAM_LOCAL_EMBEDDER_BACKEND=torch is therefore not available here.
RUN cd / && HF_HUB_OFFLINE=1 python -c "from pathlib import Path; \
from app.ai.local_embedder import packaged_model_dir; from app.ai.onnx_export import ensure_onnx; \
[ensure_onnx(packaged_model_dir(), Path('/opt/models'), variant=v) for v in ('fp32', 'int8', 'int8-mixed')]" \
    && pip uninstall --yes torch transformers sentence-transformers

# --- runtime -------------------------------------------------------------------------------------
FROM python:3.11-slim@sha256:9c900dea9e8fb7e16277c179b555cc72d29a352dbc33cff48ad5a0412fd5bfc7 AS runtime

LABEL org.opencontainers.image.title="engram" \
      org.opencontainers.image.description="A memory service for AI agents over PostgreSQL + pgvector" \
      org.opencontainers.image.licenses="Apache-2.0"

RUN groupadd --system --gid 10001 engram \
    && useradd --system --uid 10001 --gid engram --home-dir /home/engram --create-home \
       --shell /usr/sbin/nologin engram \
    && mkdir -p /data \
    && chown engram:engram /data

COPY --from=build /opt/venv /opt/venv
COPY --from=build /opt/models /opt/models

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
    ENGRAM_DATA_DIR=/data \
    ENGRAM_MODEL_CACHE_DIR=/opt/models

USER engram

EXPOSE 8000

# No curl in slim: probe /healthz with the standard library.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('ENGRAM_PORT', '8000'), timeout=2)"

# uvicorn drains in-flight requests on SIGTERM (up to 30 s) before the process exits.
STOPSIGNAL SIGTERM
CMD ["engram", "serve"]
