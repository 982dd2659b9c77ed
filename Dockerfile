# Aperture gateway image: build in one stage, run production dependencies only in the other.
#   docker build -t aperture .
#   docker run -p 8080:8080 -v "$PWD/aperture.yaml:/etc/aperture/aperture.yaml:ro" \
#     -e APERTURE_CONFIG=/etc/aperture/aperture.yaml aperture
# Without a config the built-in catalog is served. compose.yaml and deploy/kubernetes/ run three
# replicas on Redis (README: "Running more than one").

FROM node:20-bookworm-slim AS build
WORKDIR /app
# Dependencies first, so a source change reuses the install layer.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
# What the runtime stage copies: the same modules (native ones already built) without dev dependencies.
RUN npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json ./package.json
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
# The `node` user of the base image (uid 1000): the code stays root-owned and read-only to it;
# only the state directory is its own (SQLite with the embedded default, little with Redis).
RUN mkdir -p /var/lib/aperture && chown node:node /var/lib/aperture
ENV APERTURE_STATE_DIR=/var/lib/aperture
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/cli/main.js", "serve", "--host", "0.0.0.0", "--port", "8080"]
