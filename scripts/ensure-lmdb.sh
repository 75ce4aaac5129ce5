#!/usr/bin/env bash
# Installs LMDB's development files (Debian: liblmdb-dev) when this machine lacks them.
set -euo pipefail

if [ -f /usr/include/lmdb.h ] || pkg-config --exists lmdb 2>/dev/null; then
    exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

if command -v apt-get >/dev/null 2>&1; then
    echo "ensure-lmdb: installing liblmdb-dev" >&2
    export DEBIAN_FRONTEND=noninteractive
    # A fresh machine may have no package lists yet: update, then retry once.
    $sudo apt-get install -y liblmdb-dev || { $sudo apt-get update && $sudo apt-get install -y liblmdb-dev; }
elif command -v brew >/dev/null 2>&1; then
    brew install lmdb
else
    echo "ensure-lmdb: install LMDB's development package (lmdb.h and liblmdb), then retry" >&2
    exit 1
fi
