#!/usr/bin/env bash
# Installs PostgreSQL's server programs (Debian: postgresql) when this machine lacks them: the sync
# tests start a private cluster of their own (Sources/PrivatePostgres/PostgresCluster.swift).
set -euo pipefail

if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; then
    exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

if command -v apt-get >/dev/null 2>&1; then
    echo "ensure-postgresql: installing postgresql" >&2
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get install -y postgresql || { $sudo apt-get update && $sudo apt-get install -y postgresql; }
elif command -v brew >/dev/null 2>&1; then
    brew install postgresql
else
    echo "ensure-postgresql: install PostgreSQL's server (initdb, pg_ctl, psql), then retry" >&2
    exit 1
fi
