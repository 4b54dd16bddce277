# Herald worker image: `docker compose up` builds it; `herald worker` reads TEMPORAL_ADDRESS and
# DATABASE_URL and applies the database migrations itself.
FROM node:20-bookworm-slim

# bash runs the terminal tool; git and python are common needs of the agent's commands.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bash ca-certificates git python3 \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts=false && npm cache clean --force
COPY . .

ENV NODE_ENV=production \
    HERALD_HOME=/data/herald \
    HERALD_WORKSPACE=/workspace
RUN mkdir -p /data/herald /workspace
VOLUME ["/data/herald", "/workspace"]

CMD ["node", "bin/herald.js", "worker"]
