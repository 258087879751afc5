# syntax=docker/dockerfile:1
# Multi-stage build of the Agent Spending Authorization Service.
#   docker build -t asas .
#   docker run -p 8080:8080 -e DATABASE_URL=postgres://... -e ADMIN_KEY=... asas
# (compose.yaml wires it to PostgreSQL 15 and NATS with JetStream.)
#
# Runtime (docs/runtime.md): Node 24 (the current LTS) on Debian 13 trixie (glibc 2.41) with the
# native uWebSockets.js build of @btc-vision/uwebsockets.js, which needs glibc >= 2.38. The
# development machines and CI stay on Node 20 with the @trufflesuite build of package.json
# (their glibc is 2.36); the image swaps the package in its build stage. Start-up refuses to run
# when no native build loads (exit 2, one line), so a wrong base fails loudly, never slowly.
ARG NODE_IMAGE=node:24-trixie-slim
ARG UWS_PACKAGE=npm:@btc-vision/uwebsockets.js@20.57.0

# --- build: install every dependency, compile TypeScript and the precompiled validators ---
FROM ${NODE_IMAGE} AS build
ARG UWS_PACKAGE
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts are skipped here because `prepare` builds, and the sources are not copied yet.
# Some npm releases write lock files without other platforms' optional packages and then refuse
# them in `npm ci`; the fallback installs from the same lock file (as .ci/run does).
RUN npm ci --ignore-scripts || npm install --ignore-scripts --no-audit --no-fund
# The uWebSockets.js build for this Node (package.json and the lock file in the image say so).
RUN npm install --save-exact --ignore-scripts --no-audit --no-fund "uWebSockets.js@${UWS_PACKAGE}"
# The postinstall step skipped above: patches/ (patch-package) fixes dependencies in place.
COPY patches ./patches
RUN npx patch-package
COPY tsconfig.json ./
COPY build ./build
COPY schemas ./schemas
COPY src ./src
COPY bench ./bench
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts

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
