"""The production files agree with the settings: docker-compose.yml, Dockerfile and the settings
tables of README.md and docs/operations.md.

Docker cannot run here, so these tests read the files instead of starting containers.
The settings tables are generated from `app.config.Settings`; to refresh them after changing a
setting, run `.venv/bin/python tests/unit/test_compose.py` and paste its output over both tables.
"""

from __future__ import annotations

import enum
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import SecretStr

from app.config import Settings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
PREFIX = str(Settings.model_config.get("env_prefix", ""))
ENV_NAME = re.compile(r"\bENGRAM_[A-Z0-9_]+\b")
TABLE_HEADER = "| Variable | Default | Description |"


# --- the settings table ----------------------------------------------------------------------


def env_name(field: str) -> str:
    return f"{PREFIX}{field}".upper()


def setting_names() -> set[str]:
    return {env_name(name) for name in Settings.model_fields}


def _default(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, SecretStr):
        return "(secret)"
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, bool):
        value = "true" if value else "false"
    return f"`{value}`"


def settings_table() -> str:
    """The markdown table of every setting: name, default, description (from Settings)."""
    lines = [TABLE_HEADER, "| --- | --- | --- |"]
    for name, field in Settings.model_fields.items():
        description = (field.description or "").replace("|", "\\|")
        lines.append(f"| `{env_name(name)}` | {_default(field.default)} | {description} |")
    return "\n".join(lines)


def table_in(path: Path) -> list[str]:
    """The rows of the settings table in a markdown file (the one under TABLE_HEADER)."""
    lines = path.read_text().splitlines()
    assert TABLE_HEADER in lines, f"{path.name} has no settings table starting with {TABLE_HEADER!r}"
    start = lines.index(TABLE_HEADER)
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append(line.rstrip())
    return rows


@pytest.mark.parametrize("doc", ["README.md", "docs/operations.md"])
def test_settings_table_lists_every_setting(doc: str) -> None:
    rows = table_in(ROOT / doc)
    listed = [m.group(1) for row in rows[2:] if (m := re.match(r"\| `(ENGRAM_[A-Z0-9_]+)` \|", row))]
    assert len(listed) == len(rows) - 2, f"{doc}: a settings row does not start with `ENGRAM_...`"
    assert sorted(listed) == sorted(setting_names()), f"{doc}: settings table differs from Settings"
    expected = settings_table().splitlines()
    stale = [row for row in expected if row not in rows]
    assert not stale, (
        f"{doc}: settings table is stale (run `.venv/bin/python tests/unit/test_compose.py` and paste it); "
        f"rows differing: {stale}"
    )


# --- docker-compose.yml ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(data, dict)
    return data


def _environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):  # the `- NAME=value` form
        env = dict(item.split("=", 1) if "=" in item else (item, "") for item in env)
    return {str(k): str(v) for k, v in env.items()}


def _healthcheck_test(service: dict[str, Any]) -> str:
    test = (service.get("healthcheck") or {}).get("test")
    assert test, "no healthcheck test"
    return test if isinstance(test, str) else " ".join(str(part) for part in test)


def test_every_engram_name_is_a_setting() -> None:
    known = setting_names()
    for path in (COMPOSE, DOCKERFILE):
        used = set(ENV_NAME.findall(path.read_text()))
        assert used, f"{path.name} sets no ENGRAM_* variable"
        # ENGRAM_<NAME>_FILE reads setting <name> from a file (app.config).
        unknown = {n for n in used if n not in known and n.removesuffix("_FILE") not in known}
        assert not unknown, f"{path.name} uses names that are not settings: {sorted(unknown)}"


def test_api_environment_is_valid_settings(compose: dict[str, Any]) -> None:
    env = _environment(compose["services"]["api"])
    values = {
        k[len(PREFIX) :].lower(): v
        for k, v in env.items()
        if k.startswith(PREFIX) and not k.endswith("_FILE")
    }
    values["admin_token"] = "x"  # read by the API from its secret file
    settings = Settings(**values)  # type: ignore[arg-type]
    assert settings.auth_on
    assert settings.database_url and "@db:" in settings.database_url
    assert settings.redis_url and "//redis:" in settings.redis_url


def test_services_exist_with_healthchecks(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name in ("db", "redis", "api"):
        assert name in services, f"no service {name}"
        assert _healthcheck_test(services[name])
    assert "pg_isready" in _healthcheck_test(services["db"])
    assert "redis-cli" in _healthcheck_test(services["redis"]) and "ping" in _healthcheck_test(
        services["redis"]
    )
    assert "/healthz" in _healthcheck_test(services["api"])


def test_api_waits_for_healthy_db_and_redis(compose: dict[str, Any]) -> None:
    depends = compose["services"]["api"]["depends_on"]
    assert isinstance(depends, dict), "depends_on needs the long form to wait for health"
    for name in ("db", "redis"):
        assert depends[name]["condition"] == "service_healthy"


def test_auth_is_on_with_a_required_admin_token(compose: dict[str, Any]) -> None:
    env = _environment(compose["services"]["api"])
    assert env["ENGRAM_AUTH"] == "on"
    assert "ENGRAM_ADMIN_TOKEN" not in env, "a secret belongs in a file, not in the environment"
    assert env["ENGRAM_ADMIN_TOKEN_FILE"] == "/run/secrets/admin_token"
    assert "admin_token" in compose["services"]["api"]["secrets"]
    assert compose["secrets"]["admin_token"]["file"]
    assert env["ENGRAM_HOST"] == "0.0.0.0"


def test_no_default_database_password(compose: dict[str, Any]) -> None:
    """Every password comes from the one secret file; none is written in compose, none defaulted."""
    text = COMPOSE.read_text()
    assert "POSTGRES_PASSWORD:" not in text and ":-" not in text
    db = _environment(compose["services"]["db"])
    assert db["POSTGRES_PASSWORD_FILE"] == "/run/secrets/db_password"
    for name in ("api", "worker"):
        env = _environment(compose["services"][name])
        assert (
            "@db:" in env["ENGRAM_DATABASE_URL"]
            and ":" not in env["ENGRAM_DATABASE_URL"].split("//")[1].split("@")[0]
        )
        assert env["ENGRAM_DATABASE_PASSWORD_FILE"] == "/run/secrets/db_password"
        assert "db_password" in compose["services"][name]["secrets"]


def test_secret_files_fill_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pw").write_text("p@ss/word\n")
    (tmp_path / "token").write_text("the-admin-token\n")
    monkeypatch.setenv("ENGRAM_DATABASE_PASSWORD_FILE", str(tmp_path / "pw"))
    monkeypatch.setenv("ENGRAM_ADMIN_TOKEN_FILE", str(tmp_path / "token"))
    settings = Settings(database_url="postgresql://engram@db:5432/engram")
    assert settings.admin_token is not None and settings.admin_token.get_secret_value() == "the-admin-token"
    assert settings.database_url == "postgresql://engram:p%40ss%2Fword@db:5432/engram"
    monkeypatch.setenv("ENGRAM_ADMIN_TOKEN_FILE", str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="ENGRAM_ADMIN_TOKEN_FILE"):
        Settings()


def test_db_is_pgvector_with_a_named_volume(compose: dict[str, Any]) -> None:
    db = compose["services"]["db"]
    image = db["image"]
    assert image.startswith("pgvector/pgvector:pg"), image
    major = int(re.match(r"pgvector/pgvector:pg(\d+)", image).group(1))  # type: ignore[union-attr]
    declared = set(compose.get("volumes") or {})
    mounts = [str(v).split(":") for v in db.get("volumes", [])]
    named = {src: dst for src, dst, *_ in mounts if src in declared}
    assert named, "the database needs a named volume"
    # PostgreSQL 18+ images keep data in /var/lib/postgresql/<major>/docker (mount the parent).
    wanted = "/var/lib/postgresql" if major >= 18 else "/var/lib/postgresql/data"
    assert wanted in named.values(), f"mount the volume at {wanted} for pg{major}"


def test_named_volumes_are_declared_and_used(compose: dict[str, Any]) -> None:
    declared = set(compose.get("volumes") or {})
    assert declared
    used = set()
    for service in compose["services"].values():
        for volume in service.get("volumes", []):
            source = str(volume).split(":", 1)[0] if isinstance(volume, str) else volume.get("source")
            if source and not source.startswith((".", "/", "~", "$")):
                assert source in declared, f"volume {source} is not declared"
                used.add(source)
    assert declared == used, f"declared but unused: {sorted(declared - used)}"


def test_api_port_matches_engram_port(compose: dict[str, Any]) -> None:
    api = compose["services"]["api"]
    port = _environment(api).get("ENGRAM_PORT", str(Settings.model_fields["port"].default))
    targets = []
    for mapping in api["ports"]:
        if isinstance(mapping, dict):
            targets.append(str(mapping["target"]))
        else:
            targets.append(str(mapping).rsplit(":", 1)[-1].split("/")[0])
    assert port in targets, f"no published port maps to ENGRAM_PORT={port}: {api['ports']}"
    assert f":{port}/healthz" in _healthcheck_test(api)


def test_api_is_built_from_this_dockerfile(compose: dict[str, Any]) -> None:
    build = compose["services"]["api"]["build"]
    context = build if isinstance(build, str) else build.get("context", ".")
    assert (COMPOSE.parent / context / "Dockerfile").resolve() == DOCKERFILE


# --- Dockerfile ------------------------------------------------------------------------------


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def _final_stage() -> list[tuple[str, str]]:
    steps = _instructions()
    last_from = max(i for i, (word, _) in enumerate(steps) if word == "FROM")
    return steps[last_from:]


def test_dockerfile_is_slim_python_311() -> None:
    bases = [args.split()[0] for word, args in _instructions() if word == "FROM"]
    assert bases and all(re.fullmatch(r"python:3\.11-slim@sha256:[0-9a-f]{64}", b) for b in bases), bases


def test_dockerfile_runs_as_non_root() -> None:
    users = [args for word, args in _final_stage() if word == "USER"]
    assert users, "the final stage sets no USER"
    assert users[-1].split(":")[0] not in ("root", "0")


def test_dockerfile_healthcheck_probes_healthz() -> None:
    checks = [args for word, args in _final_stage() if word == "HEALTHCHECK"]
    assert len(checks) == 1
    assert "/healthz" in checks[0] and "urllib" in checks[0]


def test_dockerfile_serves_on_all_interfaces_with_auth() -> None:
    stage = _final_stage()
    cmd = [args for word, args in stage if word == "CMD"][-1]
    argv = yaml.safe_load(cmd) if cmd.startswith("[") else shlex.split(cmd)
    assert argv[:2] == ["engram", "serve"], argv
    env = " ".join(args for word, args in stage if word == "ENV")
    assert "ENGRAM_HOST=0.0.0.0" in env
    # Settings refuse auth off beyond loopback, so the image must default to auth on.
    assert "ENGRAM_AUTH=on" in env
    port = re.search(r"ENGRAM_PORT=(\d+)", env)
    exposed = [args for word, args in stage if word == "EXPOSE"]
    assert port and exposed and port.group(1) in exposed[-1].split()


def test_dockerfile_keeps_migrations_in_the_working_directory() -> None:
    stage = _final_stage()
    workdir = [args for word, args in stage if word == "WORKDIR"][-1]
    copies = [args.split() for word, args in stage if word == "COPY"]
    assert any(parts[-2:] == ["migrations", "./migrations"] for parts in copies), copies
    assert workdir == "/app"
    runs = [args for word, args in _instructions() if word == "RUN"]
    assert any("--require-hashes" in args and "-r requirements.lock" in args for args in runs), runs
    assert any("pip install --no-cache-dir --no-deps --no-build-isolation ." in args for args in runs)


if __name__ == "__main__":
    print(settings_table())
