# Parley's container image: the server (and the `parley` command) on Node.js 24, as a non-root user,
# with its data directory in a volume. Build: `docker build -t parley .`; run: see compose.yaml.
#
# The build stage runs scripts/build-image.sh, the same script CI runs on its machine before starting the
# server from its output (test/e2e/container-image.test.ts): npm ci, build, and a copy pruned to what runs.
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
COPY . .
RUN scripts/build-image.sh /out

FROM node:${NODE_VERSION}-bookworm-slim
# Configuration is by environment (README, "Configuration"): these are the image's defaults.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    PARLEY_DATA_DIR=/data
WORKDIR /app
# Owned by root and read-only to the server: it writes only to its data directory.
COPY --from=build /out /app
RUN mkdir -p /data && chown node:node /data
# The node user of the base image (uid 1000).
USER node
VOLUME ["/data"]
EXPOSE 8080
# Ready: storage reachable and not shutting down (GET /readyz answers 200). Node's fetch: the slim image has no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM stops the server gracefully (open requests finish, instances are released).
STOPSIGNAL SIGTERM
CMD ["node", "packages/distribution/bin/parley-server.js"]
