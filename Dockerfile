# dlt-mm container: runs the bot against a real venue. Config and strategies are mounted read-only, state
# lives on a volume, metrics and health on port 9464. Nothing else needs to be writable (not even /tmp), no
# capability is needed, and the bot is the first process: SIGTERM cancels its orders before it exits, so
# give it longer to stop than engine.shutdownTimeoutMs. `npm run test:container` proves all of this.
#
#   docker build -t dlt-mm .
#   docker run --read-only --cap-drop=ALL --security-opt=no-new-privileges --hostname dlt-mm-a \
#     -v $PWD/config:/app/config:ro -v $PWD/strategies:/app/strategies:ro -v dlt-mm-state:/app/state \
#     -e DLT_MM_API_KEY -e DLT_MM_ACCESS_TOKEN -e DLT_MM_EVM_KEY -e DLT_MM_WASM_SEED \
#     -p 9464:9464 --stop-timeout 90 dlt-mm run --config /app/config/testnet.example.yaml

FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; none of them needs an install script (the pinned Node is the base image).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY config ./config
COPY strategies ./strategies
RUN mkdir -p /app/state && chown node:node /app/state
USER node
VOLUME ["/app/state"]
EXPOSE 9464
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9464/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "src/cli/dlt-mm.ts"]
CMD ["run", "--config", "/app/config/testnet.example.yaml"]
