#!/usr/bin/env bash
# Installs PostgreSQL's server programs (Debian: postgresql) and openssl when this machine lacks them:
# the sync tests start a private cluster of their own (Sources/PrivatePostgres/PostgresCluster.swift),
# with TLS on and certificates openssl makes for it.
set -euo pipefail

missing=()
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
    missing+=(postgresql)
fi
if ! command -v openssl >/dev/null 2>&1; then
    missing+=(openssl)
fi
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

if command -v apt-get >/dev/null 2>&1; then
    echo "ensure-postgresql: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get install -y "${missing[@]}" || { $sudo apt-get update && $sudo apt-get install -y "${missing[@]}"; }
elif command -v brew >/dev/null 2>&1; then
    brew install "${missing[@]}"
else
    echo "ensure-postgresql: install ${missing[*]} (PostgreSQL's server: initdb, pg_ctl, psql), then retry" >&2
    exit 1
fi
