# The service image: one image for every role. `docker compose` runs it embedded (one
# process) or, as the distributed roles land, once per role.
#
# Built as the README's quick start builds: `npm install` (the lock file is one `npm ci`
# refuses: chdb declares platform packages for other systems that npm does not record for
# this one), then `npm run build` (tsconfig.build.json, what `npm start` runs first). The image
# then runs the built files: `node dist/main.js` (the `start` script without its build step),
# and `npm run keys -- …` runs the built key CLI (test/infra/deploy.test.ts holds these
# equal to the README and package.json).
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm install's postinstall applies patches/ (patch-package: turndown's quadratic trim).
COPY patches ./patches
RUN npm install
COPY tsconfig.json tsconfig.build.json main.ts ./
COPY schemas ./schemas
COPY pipeline ./pipeline
COPY gateway ./gateway
COPY actors ./actors
COPY infra ./infra
COPY cli ./cli
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production DATA_DIR=/data PORT=3002
# The renderer drives Debian's Chromium (RENDER_CHROMIUM_PATH); no browser is downloaded.
RUN apt-get update \
  && apt-get install -y --no-install-recommends chromium chromium-headless-shell fonts-liberation \
  && rm -rf /var/lib/apt/lists/*
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Read at run time: event schemas (Avro) and the ClickHouse migrations.
COPY --from=build /app/schemas/events ./schemas/events
COPY --from=build /app/infra/clickhouse ./infra/clickhouse
COPY LICENSE README.md ./
RUN mkdir -p /data && chown node:node /data
VOLUME /data
EXPOSE 3002
USER node
CMD ["node", "dist/main.js"]
