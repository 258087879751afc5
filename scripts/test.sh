#!/bin/sh
# `npm test`: the whole suite against the real PostgreSQL (127.0.0.1:5432, or TEST_PG_URL) and
# NATS (127.0.0.1:4222). `npm run test:embedded` runs the HTTP tests again on the embedded
# defaults (PGlite, the in-process bus); test/drills/ needs the real servers and stays out of it.
#
# What the suite needs that a fresh machine may lack, it prepares here and says so:
# - the browser test of GET /docs drives Debian's chromium (playwright-core never downloads a
#   browser): when /usr/bin/chromium (or CHROMIUM_PATH) is missing and this runs as root with
#   apt-get, it installs the `chromium` package; otherwise it says what to install and stops.
# The suite itself fits PostgreSQL's default of 100 connections (vitest.config.ts).
set -eu
cd "$(dirname "$0")/.."

chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "npm test: installing Debian's chromium for the browser test of GET /docs (apt-get install chromium)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  else
    echo "npm test: the browser test of GET /docs needs chromium at $chromium" >&2
    echo "  install it (Debian: sudo apt-get install chromium) or set CHROMIUM_PATH" >&2
    exit 1
  fi
fi

npm run build
if [ "${1:-}" = "--embedded" ]; then
  shift
  TEST_EMBEDDED=1 exec vitest run --exclude 'test/drills/**' "$@"
fi
exec vitest run "$@"
