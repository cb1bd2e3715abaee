# One image for both processes; docker-compose.yml picks the command.
# (No Docker engine on the development machine: this file is kept correct by reading.)
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN npm i -g pnpm@12.21.0
# python3/make/g++ in case argon2's prebuilt binary does not fit the platform.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY . .
RUN pnpm install --frozen-lockfile && pnpm build

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app /app
USER node
EXPOSE 3000
CMD ["node", "apps/api/dist/server.js"]
