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
COPY domain ./domain
COPY core ./core
COPY config ./config
COPY db ./db
COPY accounts ./accounts
COPY commerce ./commerce
COPY integrations ./integrations
COPY temporal ./temporal
COPY processes ./processes
COPY workflows ./workflows
COPY activities ./activities
COPY api ./api
# Tests and their helpers stay out of the image; scripts/import-layers.ts keeps product code
# from importing them.
RUN find . -path ./node_modules -prune -o \( -name '*.test.ts' -o -name '*testing*.ts' \
      -o -name '*replay*.ts' -o -name 'adversarial-*.ts' -o -name '__fixtures__' \) -print \
    | xargs rm -rf
# The workflows' bundle, made at build time: a worker starts polling without running webpack.
RUN node -e "import('./temporal/workflow-bundle.ts').then((bundle) => bundle.cachedWorkflowBundle())"
USER node
EXPOSE 3000
CMD ["node", "--max-semi-space-size=32", "api/server.ts"]
