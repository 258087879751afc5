#!/bin/sh
# `npm start` and the container image's CMD: starts the service with the Node flags and, on the
# embedded defaults, the malloc setting that production runs with. `exec` hands the process over
# to node, so SIGTERM reaches the service itself (graceful drain, docs/operations.md "Production").
#
# --single-threaded-gc: V8 collects on the thread that allocates, without parallel helper
# threads, which wait for each other when every core is busy (docs/benchmarks.md).
# MALLOC_ARENA_MAX=1 on the embedded defaults (no DATABASE_URL): glibc's malloc keeps one arena
# for all threads. The threads busy at start-up (V8's compilers, libuv's pool) otherwise each
# keep an arena of freed memory the process never gives back, ~30 MB of the embedded default's
# idle RSS. On PostgreSQL the shard workers allocate at full load in parallel and one arena
# costs p99 (paired bench runs, docs/benchmarks.md), so it is left to glibc there. A
# MALLOC_ARENA_MAX already in the environment wins.
if [ -z "${DATABASE_URL:-}" ]; then
  export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-1}"
fi
exec node --single-threaded-gc "$(dirname "$0")/../dist/src/main.js"
