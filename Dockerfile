# syntax=docker/dockerfile:1
# Build stage: full dependencies, compile, build the reference files and the OpenAPI document.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY scripts ./scripts
COPY migrations ./migrations
COPY reference-data ./reference-data
COPY views ./views
COPY assets ./assets
COPY src ./src
RUN npm run build

# Runtime stage: production dependencies only, non-root.
# An explicit heap limit keeps V8 from growing the heap far past the live set (~300 MB RSS under
# load without it, ~170 MB with it: README "Benchmarks"); npm run bench runs the service with it.
# Node 24's young generation grows to 2 × 32 MB semi-spaces, which alone took the RSS under load
# from ~170 to ~300 MB; 8 MB semi-spaces bring it back (docs/benchmarks.md). glibc gives each thread
# that allocates (libuv's pool, V8's helpers) an arena of its own, up to 8 per core, and keeps what
# each freed: 2 arenas keep ~20 MB less for the same work, 1 arena ~10 MB less again, the yardstick's
# CPU unchanged (MALLOC_ARENA_MAX; docs/benchmarks.md).
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0 DATA_DIR=/data NODE_OPTIONS="--max-old-space-size=384 --max-semi-space-size=8" MALLOC_ARENA_MAX=1
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY reference-data ./reference-data
COPY views ./views
COPY assets ./assets
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
VOLUME ["/data"]
HEALTHCHECK --interval=15s --timeout=3s --retries=5 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/src/main.js"]
