# One image for the API, the worker and the migrations; docker-compose.yml (and deploy/kubernetes/)
# pick the command. Node 24, the current LTS. (No Docker engine on the development machine: a test,
# deploy/test/docker.test.ts, reads this file and checks it against the build and the config schema.)

# Build: every package and app, with the development dependencies (TypeScript, Vite, turbo).
FROM node:24-bookworm-slim AS build
WORKDIR /src
RUN npm i -g pnpm@12.21.0
# python3/make/g++ in case argon2's prebuilt binary does not fit the platform.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY . .
RUN pnpm install --frozen-lockfile && pnpm build
# Production dependencies only (no devDependencies: no Vite, no TypeScript, no tap), one tree per
# process, each laid out where the commands below expect it.
RUN pnpm --filter=@webpush/api deploy --prod --legacy /out/apps/api \
 && pnpm --filter=@webpush/worker deploy --prod --legacy /out/apps/worker \
 && pnpm --filter=@webpush/db deploy --prod --legacy /out/packages/db \
 && mkdir -p /out/apps/dashboard && cp -r apps/dashboard/dist /out/apps/dashboard/dist \
 && rm -rf /out/apps/*/src /out/apps/*/test /out/packages/*/src /out/packages/*/test

# Runtime: the build output and production dependencies, as the unprivileged `node` user.
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build --chown=root:root /out /app
COPY --chmod=755 deploy/docker/entrypoint.sh /usr/local/bin/webpush-entrypoint
# Where the first run keeps the generated ENCRYPTION_KEY and API_KEY_PEPPER (docker-compose.yml
# mounts a volume here; the volume takes this directory's owner).
RUN mkdir -p /var/lib/webpush && chown node:node /var/lib/webpush
USER node
EXPOSE 3000
# /healthz of whichever process runs: the API on PORT, or the worker's health server on PORT.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["webpush-entrypoint"]
CMD ["node", "apps/api/dist/server.js"]
