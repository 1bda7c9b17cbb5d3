#!/usr/bin/env bash
# Installs Debian's chromium for the browser tests (tests/test_web_browser.py), which drive
# it with Playwright for Python. Playwright's own browser download cannot be used here: the
# tests launch /usr/bin/chromium instead. Needs root and Debian's package registry.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
    echo "chromium is already installed: $(/usr/bin/chromium --version 2>/dev/null || true)"
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends chromium
/usr/bin/chromium --version
