# syntax=docker/dockerfile:1
#
# modelgate, multi-stage. Not built on the development machines (they have no Docker); the test
# apps/server/src/lib/shutdown-docker.test.ts keeps this file in step with `npm start` and the
# configuration. Build and run:
#
#   docker build -t modelgate .
#   docker run -d -p 3000:3000 -v modelgate-data:/data -e SESSION_SECRET=... --stop-timeout 45 modelgate
#
# With no SQL_DSN the database is SQLite in the /data volume. `docker stop` sends SIGTERM: the
# server finishes the calls under way (up to SHUTDOWN_TIMEOUT, 30 s), flushes and exits 0, so give
# it a stop timeout longer than SHUTDOWN_TIMEOUT (Docker's default is 10 s).

ARG NODE_VERSION=20

# --- build: every dependency, then the console (apps/web/dist) ----------------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS build
# better-sqlite3 compiles from source when no prebuilt binary matches.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/contract/package.json packages/contract/
COPY packages/protocol/package.json packages/protocol/
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# --- deps: production dependencies only (the server runs as the JavaScript built in the build stage) ---
FROM node:${NODE_VERSION}-bookworm-slim AS deps
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/packages/contract/package.json packages/contract/
COPY --from=build /app/packages/protocol/package.json packages/protocol/
COPY --from=build /app/apps/server/package.json apps/server/
COPY --from=build /app/apps/web/package.json apps/web/
RUN npm ci --omit=dev --no-audit --no-fund

# --- runtime -------------------------------------------------------------------------------------
FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production \
    PORT=3000 \
    SQLITE_PATH=/data/modelgate.db
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/scripts ./scripts
COPY --from=build /app/packages/contract ./packages/contract
COPY --from=build /app/packages/protocol ./packages/protocol
COPY --from=build /app/apps/server/package.json ./apps/server/
COPY --from=build /app/apps/server/dist ./apps/server/dist
COPY --from=build /app/apps/web/package.json ./apps/web/
COPY --from=build /app/apps/web/dist ./apps/web/dist
# npm start rebuilds the console when its sources look newer than the build; the image holds the
# build only (no apps/web/src), and the touch makes sure the build counts as the newest.
RUN touch apps/web/dist/index.html apps/server/dist/main.mjs \
 && mkdir -p /data \
 && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
# What `npm start` runs (package.json "start"), without npm in between: the signal reaches it.
CMD ["node", "scripts/start.mjs"]
