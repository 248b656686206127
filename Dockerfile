# One image for the API, the worker and migrations; the command picks the role.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
RUN node node_modules/vite/bin/vite.js build --config dashboard/vite.config.ts

FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund
COPY --from=build /app/dashboard/dist ./dashboard/dist
COPY api ./api
COPY commerce ./commerce
COPY activities ./activities
COPY config ./config
COPY db ./db
COPY domain ./domain
COPY temporal ./temporal
COPY workflows ./workflows
USER node
EXPOSE 3000
CMD ["node", "--max-semi-space-size=32", "api/server.ts"]
