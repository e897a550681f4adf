# The image GitHub builds for `runs: using: docker` (action.yml: `image: Dockerfile`).
#
# BASE is the official slim Python image pinned by exact tag and by the digest of its multi-platform
# index (as recorded in docker-library/repo-info for the 2026-09-01 build), so a rebuilt tag cannot
# change what runs. Tests build the same file on a locally made Debian base with
# `--build-arg BASE=localhost/base:bookworm`; anything taken from BASE must therefore work with both
# (python3 on PATH with the venv module).
ARG BASE=python:3.11.16-slim-bookworm@sha256:c425d915a89a6dcd3183b1797ad9bd8878caff5a417f6371c8df93c8ea8b727f

# ---- build: resolve and install into a venv; nothing of this stage but the venv is kept ----
FROM ${BASE} AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_ROOT_USER_ACTION=ignore

WORKDIR /src

# Dependencies first, from pyproject.toml's exact pins (and its build backend), with everything
# they pull in held to image-constraints.txt; a source change then reuses this layer. Wheels only:
# the image has no compiler, and a dependency that would need one must fail the build here.
COPY pyproject.toml image-constraints.txt ./
RUN python3 -m venv /opt/claim-gate \
    && python3 -c "import tomllib; p = tomllib.load(open('pyproject.toml', 'rb')); print('\n'.join(p['project']['dependencies'] + p['build-system']['requires']))" > requirements.txt \
    && /opt/claim-gate/bin/pip install --only-binary=:all: -c image-constraints.txt -r requirements.txt

# The package itself, installed (not run from the checkout: the runner replaces WORKDIR with
# --workdir /github/workspace). The build tools leave the runtime environment afterwards.
COPY README.md ./
COPY gate ./gate
RUN /opt/claim-gate/bin/pip install --no-deps --no-build-isolation . \
    && /opt/claim-gate/bin/pip uninstall --yes pip setuptools wheel

# ---- runtime: the base plus the venv ----
FROM ${BASE}

ENV PATH="/opt/claim-gate/bin:${PATH}"

COPY --from=build /opt/claim-gate /opt/claim-gate

# Exec form: inputs arrive as INPUT_<NAME> with hyphens kept (INPUT_CLAIM-PATH), which a shell
# such as dash drops from the environment it passes on.
# -I (isolated): `python3 -m` would otherwise put the working directory first on sys.path, and
# the runner sets it to the checked-out repository, so a `gate/` folder in the pull request
# under judgement would replace the gate itself; -I also ignores PYTHONPATH and PYTHON* variables.
ENTRYPOINT ["python3", "-I", "-m", "gate.faces.action.main"]
