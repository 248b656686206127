import { createSecretKey, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';

/** The repository root: every relative path in the configuration is taken from here. */
export const projectRoot = resolve(import.meta.dirname, '..');

const portNumber = z.coerce
  .number({ message: 'an integer port number between 1 and 65535' })
  .int('an integer port number between 1 and 65535')
  .min(1, 'an integer port number between 1 and 65535')
  .max(65535, 'an integer port number between 1 and 65535');

const port = (fallback: number) => portNumber.default(fallback);

const url = (protocols: string[], what: string) =>
  z.url({ protocol: new RegExp(`^(${protocols.join('|')})$`), message: what });

const hostPort = z.string().regex(/^[\w.-]+:\d{1,5}$/, 'host:port, for example 127.0.0.1:7233');

const rateLimitSetting = 'on, off, or a factor applied to every limit, such as 2 or 0.5';

/** A key of the Temporal payload codec (temporal/payload-codec.ts): AES-256, named by its id. */
export interface PayloadKey {
  id: string;
  /** A KeyObject, so that printing the configuration never prints the key. */
  key: KeyObject;
}

const payloadKeysSetting =
  'a comma-separated list of id:key, the current key first, ids distinct, each key 32 random bytes in base64 (`openssl rand -base64 32`)';

/** `new:<base64>,old:<base64>` as keys, the current one first; null when malformed. */
export function parsePayloadKeys(setting: string): PayloadKey[] | null {
  const keys = setting.split(',').map((entry) => {
    const [, id, encoded = ''] = /^\s*([\w.-]{1,64}):(\S+)\s*$/.exec(entry) ?? [];
    const bytes = Buffer.from(encoded, 'base64');
    // Buffer.from skips what is not base64: only a canonical encoding of 32 bytes passes.
    if (!id || bytes.length !== 32 || bytes.toString('base64') !== encoded) return null;
    return { id, key: createSecretKey(bytes) };
  });
  const distinct = new Set(keys.map((key) => key?.id)).size === keys.length;
  return distinct && keys.every((key) => key !== null) ? keys : null;
}

/** Variables whose values a configuration error never repeats. */
const secretVariables = new Set([
  'TOLLGATE_PAYLOAD_KEYS',
  'TOLLGATE_AUTH_SECRET',
  'TOLLGATE_OPS_TOKEN',
  'TOLLGATE_METRICS_TOKEN',
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'TOLLGATE_FILES_S3_SECRET_ACCESS_KEY',
  'TOLLGATE_CAPTCHA_SECRET_KEY',
  'TOLLGATE_DISCORD_CLIENT_SECRET',
  'TOLLGATE_GITHUB_APP_PRIVATE_KEY',
]);

const trustedProxiesSetting =
  'a number of proxy hops such as 1, or a comma-separated list of proxy addresses and CIDR ranges such as 10.0.0.0/8,192.168.1.10';

/**
 * Who may say, in X-Forwarded-For, which client a request comes from: the proxies in front of
 * the API, counted (`hops`, whatever their addresses) or named by address and range.
 */
export type TrustedProxies =
  | { hops: number }
  | { networks: { address: string; prefix: number; family: 'ipv4' | 'ipv6' }[] };

/** `2`, or `10.0.0.0/8, 192.168.1.10, fd00::/8`; null when it is neither. */
function parseTrustedProxies(setting: string): TrustedProxies | null {
  if (/^\s*\d+\s*$/.test(setting)) {
    const hops = Number(setting);
    return hops >= 1 ? { hops } : null;
  }
  const networks = setting.split(',').map((entry) => {
    const [address = '', prefixText, ...rest] = entry.trim().split('/');
    const version = isIP(address);
    const bits = version === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? bits : Number(/^\d{1,3}$/.exec(prefixText)?.[0]);
    if (!version || rest.length || !(prefix <= bits)) return null;
    return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' } as const;
  });
  return networks.every((network) => network !== null) ? { networks } : null;
}

/** The captcha kinds of spec §9: Cloudflare Turnstile, Google reCAPTCHA (v2 and v3), hCaptcha. */
export const captchaProviders = ['turnstile', 'recaptcha', 'hcaptcha'] as const;
export type CaptchaProvider = (typeof captchaProviders)[number];

export interface CaptchaConfig {
  provider: CaptchaProvider;
  secretKey: string;
  /** Unset: the provider's own siteverify endpoint (integrations/captcha/siteverify.ts). */
  verifyUrl: string | undefined;
  /** reCAPTCHA v3 answers below this score are refused. */
  minScore: number;
}

/**
 * Every setting Tollgate reads from the environment, in one place. A value that is missing
 * where required, or malformed, stops start-up with a line naming the variable.
 */
const environmentSchema = z.object({
  NODE_ENV: z
    .enum(['development', 'test', 'production'], { message: 'development, test or production' })
    .default('development'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      message: 'one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  TOLLGATE_DATA_DIR: z.string().min(1).default('.data'),
  TOLLGATE_FILES_DIR: z.string().min(1).default('files'),
  TOLLGATE_FILES_S3_ENDPOINT: url(
    ['http', 'https'],
    'the http(s) URL of an S3-compatible service, such as https://s3.eu-west-1.amazonaws.com',
  ).optional(),
  TOLLGATE_FILES_S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'an S3 bucket name such as tollgate-files')
    .optional(),
  TOLLGATE_FILES_S3_REGION: z.string().min(1).default('us-east-1'),
  TOLLGATE_FILES_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  TOLLGATE_FILES_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** The largest downloadable file; images have fixed limits (commerce/files/service.ts). */
  TOLLGATE_FILES_MAX_BYTES: z.coerce
    .number({ message: 'a whole number of bytes, 1 or more' })
    .int('a whole number of bytes, 1 or more')
    .min(1, 'a whole number of bytes, 1 or more')
    .default(1024 ** 3),
  /** All of one organization's files together, those still uploading included. */
  TOLLGATE_FILES_ORGANIZATION_MAX_BYTES: z.coerce
    .number({ message: 'a whole number of bytes, 1 or more' })
    .int('a whole number of bytes, 1 or more')
    .min(1, 'a whole number of bytes, 1 or more')
    .default(10 * 1024 ** 3),
  TOLLGATE_API_HOST: z.string().min(1).default('127.0.0.1'),
  TOLLGATE_API_PORT: port(3000),
  /** API processes sharing the port; production defaults to one per CPU core. */
  TOLLGATE_API_PROCESSES: z.coerce
    .number({ message: 'a whole number of processes, at least 1' })
    .int('a whole number of processes, at least 1')
    .min(1, 'a whole number of processes, at least 1')
    .optional(),
  /** Of the API processes, how many take event ingestion alone; 0: every process takes all. */
  TOLLGATE_API_INGEST_PROCESSES: z.coerce
    .number({ message: 'a whole number of processes, 0 or more' })
    .int('a whole number of processes, 0 or more')
    .min(0, 'a whole number of processes, 0 or more')
    .default(0),
  /** Worker processes polling the task queues; production defaults to one per CPU core. */
  TOLLGATE_WORKER_PROCESSES: z.coerce
    .number({ message: 'a whole number of processes, at least 1' })
    .int('a whole number of processes, at least 1')
    .min(1, 'a whole number of processes, at least 1')
    .optional(),
  TOLLGATE_PUBLIC_URL: url(
    ['http', 'https'],
    'an http(s) URL such as http://localhost:3000',
  ).optional(),
  DATABASE_URL: url(['postgres', 'postgresql'], 'a postgres:// connection URL').optional(),
  TOLLGATE_EMBEDDED_POSTGRES_PORT: port(5433),
  TEMPORAL_ADDRESS: hostPort.optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_CLI_PATH: z.string().min(1).optional(),
  TEMPORAL_DEV_PORT: port(7233),
  TEMPORAL_UI_PORT: port(8233),
  TEMPORAL_UI_URL: url(['http', 'https'], 'an http(s) URL of the Temporal Web UI').optional(),
  /** Required in production; `npm start` keeps one in the data folder, `npm test` makes one. */
  TOLLGATE_PAYLOAD_KEYS: z
    .string()
    .transform((setting, context) => {
      const keys = parsePayloadKeys(setting);
      if (!keys) context.addIssue({ code: 'custom', message: payloadKeysSetting });
      return keys ?? z.NEVER;
    })
    .optional(),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(test|live)_\w+$/, 'a Stripe secret key such as sk_test_...')
    .default('sk_test_tollgate'),
  STRIPE_API_BASE: url(
    ['http', 'https'],
    'the base URL of the Stripe API, e.g. http://127.0.0.1:12111',
  ).optional(),
  STRIPE_MOCK_PATH: z.string().min(1).optional(),
  STRIPE_PUBLISHABLE_KEY: z
    .string()
    .regex(/^pk_\S+$/, 'a Stripe publishable key such as pk_test_...')
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_\S+$/, 'a Stripe webhook signing secret such as whsec_...')
    .optional(),
  /** Set by `npm start` and `npm test`: the control API of their Stripe simulator. */
  STRIPE_SIMULATOR_URL: url(['http'], 'the http URL of the Stripe simulator').optional(),
  STRIPE_MOCK_PORT: port(12111),
  TOLLGATE_OPS_TOKEN: z
    .string()
    .min(32, 'a random string of at least 32 characters (for example `openssl rand -hex 32`)')
    .optional(),
  /** Unset: the API has no /metrics (the worker's metrics port, when set, then asks no token). */
  TOLLGATE_METRICS_TOKEN: z
    .string()
    .min(32, 'a random string of at least 32 characters (for example `openssl rand -hex 32`)')
    .optional(),
  /** Unset: the worker serves no metrics. Its primary serves them for all its processes. */
  TOLLGATE_WORKER_METRICS_PORT: portNumber.optional(),
  TOLLGATE_WORKER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  SMTP_URL: url(
    ['smtp', 'smtps'],
    'an smtp:// or smtps:// URL such as smtps://user:password@mail.example.com',
  ).optional(),
  MAIL_FROM: z
    .string()
    .regex(
      /^([^<>@]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/,
      'a sender address such as Tollgate <no-reply@example.com>',
    )
    .default('Tollgate <no-reply@tollgate.local>'),
  /** Set by `npm start` and `npm test` for the API and worker when they run the capture server. */
  MAIL_CAPTURE_DIR: z.string().min(1).optional(),
  TOLLGATE_AUTH_SECRET: z
    .string()
    .min(32, 'a random string of at least 32 characters (for example `openssl rand -hex 32`)')
    .optional(),
  TOLLGATE_TRUSTED_ORIGINS: z
    .string()
    .regex(
      /^(https?:\/\/[^\s,]+)(,\s*https?:\/\/[^\s,]+)*$/,
      'a comma-separated list of origins such as https://app.example.com',
    )
    .optional(),
  /** Unset: X-Forwarded-For is ignored and the client is the connection's peer. */
  TOLLGATE_TRUSTED_PROXIES: z
    .string()
    .transform((setting, context) => {
      const trusted = parseTrustedProxies(setting);
      if (!trusted) context.addIssue({ code: 'custom', message: trustedProxiesSetting });
      return trusted ?? z.NEVER;
    })
    .optional(),
  TOLLGATE_REQUIRE_EMAIL_VERIFICATION: z
    .enum(['true', 'false'], { message: 'true or false' })
    .default('false'),
  TOLLGATE_AUTH_RATE_LIMIT: z
    .string()
    .regex(/^(on|off|\d+(\.\d+)?)$/, rateLimitSetting)
    .refine((value) => Number(value) !== 0, rateLimitSetting)
    .default('on'),
  TOLLGATE_ADMIN_USER_IDS: z
    .string()
    .regex(
      /^\s*[0-9a-f-]{36}\s*(,\s*[0-9a-f-]{36}\s*)*$/i,
      'a comma-separated list of user ids (UUIDs)',
    )
    .optional(),
  TOLLGATE_SESSION_COOKIE_CACHE: z.enum(['on', 'off'], { message: 'on or off' }).default('off'),
  TOLLGATE_DELETE_USER_VERIFICATION: z
    .enum(['mail', 'none'], { message: 'mail or none' })
    .default('mail'),
  /** Lifetimes of the mailed tokens (spec §9: Better Auth's defaults). */
  TOLLGATE_EMAIL_VERIFICATION_TOKEN_TTL_SECONDS: z.coerce
    .number({ message: 'a whole number of seconds, 1 or more' })
    .int('a whole number of seconds, 1 or more')
    .min(1, 'a whole number of seconds, 1 or more')
    .default(3600),
  TOLLGATE_PASSWORD_RESET_TOKEN_TTL_SECONDS: z.coerce
    .number({ message: 'a whole number of seconds, 1 or more' })
    .int('a whole number of seconds, 1 or more')
    .min(1, 'a whole number of seconds, 1 or more')
    .default(3600),
  /** Unset: no captcha. Set, sign-up, sign-in and password reset requests need a solved one. */
  TOLLGATE_CAPTCHA_PROVIDER: z
    .enum(captchaProviders, { message: 'turnstile, recaptcha or hcaptcha' })
    .optional(),
  TOLLGATE_CAPTCHA_SECRET_KEY: z.string().min(1).optional(),
  /** Stands in for the provider's siteverify endpoint (a local verifier in tests). */
  TOLLGATE_CAPTCHA_VERIFY_URL: url(['http', 'https'], 'an http(s) URL').optional(),
  /** reCAPTCHA v3: the lowest score that passes (Better Auth's default, 0.5). */
  TOLLGATE_CAPTCHA_MIN_SCORE: z.coerce
    .number({ message: 'a score between 0 and 1, such as 0.5' })
    .min(0, 'a score between 0 and 1, such as 0.5')
    .max(1, 'a score between 0 and 1, such as 0.5')
    .default(0.5),
  GITHUB_CLIENT_ID: z.string().optional(),
  GITHUB_CLIENT_SECRET: z.string().optional(),
  GOOGLE_CLIENT_ID: z.string().optional(),
  GOOGLE_CLIENT_SECRET: z.string().optional(),
  DISCORD_CLIENT_ID: z.string().optional(),
  DISCORD_CLIENT_SECRET: z.string().optional(),
  TOLLGATE_OAUTH_GITHUB_BASE_URL: url(['http', 'https'], 'an http(s) URL').optional(),
  TOLLGATE_OAUTH_GOOGLE_BASE_URL: url(['http', 'https'], 'an http(s) URL').optional(),
  TOLLGATE_OAUTH_DISCORD_BASE_URL: url(['http', 'https'], 'an http(s) URL').optional(),
  TOLLGATE_OAUTH_TRUSTED_PROVIDERS: z
    .string()
    .regex(
      /^\s*(github|google|discord)\s*(,\s*(github|google|discord)\s*)*$/,
      'a comma-separated list of github, google and discord',
    )
    .optional(),
  TOLLGATE_OAUTH_ALLOW_DIFFERENT_EMAILS: z
    .enum(['true', 'false'], { message: 'true or false' })
    .default('false'),
  TOLLGATE_MAXIMUM_TEAMS: z.coerce
    .number({ message: 'a whole number of teams, 1 or more' })
    .int('a whole number of teams, 1 or more')
    .min(1, 'a whole number of teams, 1 or more')
    .optional(),
  TOLLGATE_MAXIMUM_MEMBERS_PER_TEAM: z.coerce
    .number({ message: 'a whole number of members, 1 or more' })
    .int('a whole number of members, 1 or more')
    .min(1, 'a whole number of members, 1 or more')
    .optional(),
  TOLLGATE_ALLOW_REMOVING_ALL_TEAMS: z
    .enum(['true', 'false'], { message: 'true or false' })
    .default('false'),
  TOLLGATE_ORGANIZATION_LIMIT: z.coerce
    .number({ message: 'a whole number of organizations, 1 or more' })
    .int('a whole number of organizations, 1 or more')
    .min(1, 'a whole number of organizations, 1 or more')
    .optional(),
  TOLLGATE_MEMBERSHIP_LIMIT: z.coerce
    .number({ message: 'a whole number of members, 1 or more' })
    .int('a whole number of members, 1 or more')
    .min(1, 'a whole number of members, 1 or more')
    .default(100),
  TOLLGATE_INVITATION_LIFETIME_SECONDS: z.coerce
    .number({ message: 'a whole number of seconds, 1 or more' })
    .int('a whole number of seconds, 1 or more')
    .min(1, 'a whole number of seconds, 1 or more')
    .default(172_800),
  TOLLGATE_INVITATION_REMINDER_SECONDS: z.coerce
    .number({ message: 'a whole number of seconds, 0 for no reminder' })
    .int('a whole number of seconds, 0 for no reminder')
    .min(0, 'a whole number of seconds, 0 for no reminder')
    .default(86_400),
  TOLLGATE_DISCORD_API_BASE_URL: url(['http', 'https'], 'an http(s) URL').default(
    'https://discord.com/api/v10',
  ),
  TOLLGATE_DISCORD_BOT_TOKEN: z.string().min(1).optional(),
  TOLLGATE_GITHUB_API_BASE_URL: url(['http', 'https'], 'an http(s) URL').default(
    'https://api.github.com',
  ),
  TOLLGATE_GITHUB_TOKEN: z.string().min(1).optional(),
  /** The bot's application (OAuth2 client): sellers connect a Discord server by installing it. */
  TOLLGATE_DISCORD_CLIENT_ID: z.string().regex(/^\d+$/, 'a Discord application id').optional(),
  TOLLGATE_DISCORD_CLIENT_SECRET: z.string().min(1).optional(),
  /** The GitHub App sellers install to connect GitHub: its id, private key and public page. */
  TOLLGATE_GITHUB_APP_ID: z.string().regex(/^\d+$/, 'a GitHub App id (a number)').optional(),
  TOLLGATE_GITHUB_APP_PRIVATE_KEY: z
    .string()
    // `\n` escapes stand for line breaks, so the PEM fits on one line of an env file.
    .transform((key) => key.replaceAll('\\n', '\n'))
    .refine((key) => key.includes('-----BEGIN'), 'a PEM private key (-----BEGIN …)')
    .optional(),
  TOLLGATE_GITHUB_APP_URL: url(['http', 'https'], 'an http(s) URL').optional(),
  TOLLGATE_INVITATION_LIMIT: z.coerce
    .number({ message: 'a whole number of pending invitations, at least 1' })
    .int('a whole number of pending invitations, at least 1')
    .min(1, 'a whole number of pending invitations, at least 1')
    .default(100),
  TOLLGATE_CHECKOUT_TTL_SECONDS: z.coerce
    .number({ message: 'a whole number of seconds, 1 or more' })
    .int('a whole number of seconds, 1 or more')
    .min(1, 'a whole number of seconds, 1 or more')
    .default(3600),
  /** How long a confirmed checkout waits for its buyer's 3-D Secure step. */
  TOLLGATE_CHECKOUT_AUTHENTICATION_TIMEOUT_SECONDS: z.coerce
    .number({ message: 'a whole number of seconds, 1 or more' })
    .int('a whole number of seconds, 1 or more')
    .min(1, 'a whole number of seconds, 1 or more')
    .default(1800),
  /** `on`: an organization takes paid checkouts only once it has submitted its details. */
  TOLLGATE_REQUIRE_SELLER_DETAILS: z.enum(['on', 'off'], { message: 'on or off' }).default('off'),
  /** Seconds between a failed webhook delivery and its retries; one more failure disables. */
  TOLLGATE_WEBHOOK_RETRY_DELAYS: z
    .string()
    .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'comma-separated seconds such as 10,60,300')
    .default('10,60,300,1800,7200,21600,43200,86400,86400'),
  /** Sandbox test clocks (/v1/test-clocks); unset: on, except with NODE_ENV=production. */
  TOLLGATE_TEST_CLOCKS: z.enum(['on', 'off'], { message: 'on or off' }).optional(),
  /** Seconds between the runs of each upkeep schedule (processes/upkeep-schedules.ts). */
  TOLLGATE_UPKEEP_PURGE_INTERVAL_SECONDS: upkeepInterval(3600),
  TOLLGATE_UPKEEP_UPLOADS_INTERVAL_SECONDS: upkeepInterval(3600),
  TOLLGATE_UPKEEP_REMINDERS_INTERVAL_SECONDS: upkeepInterval(86_400),
  TOLLGATE_UPKEEP_RECONCILIATION_INTERVAL_SECONDS: upkeepInterval(86_400),
  /** Unset: no tracing. Set: the API and the worker send their spans there (core/start-tracing.ts). */
  OTEL_EXPORTER_OTLP_ENDPOINT: url(
    ['http', 'https'],
    "the http(s) base URL of an OpenTelemetry collector's OTLP/HTTP receiver, such as http://localhost:4318",
  ).optional(),
});

/** Seconds between two runs of a periodic job: a minute at least. */
function upkeepInterval(defaultSeconds: number) {
  const message = 'a whole number of seconds, 60 or more';
  return z.coerce.number({ message }).int(message).min(60, message).default(defaultSeconds);
}

/** One process per CPU core in production, one otherwise. */
const processesByDefault = (env: Environment) =>
  env.NODE_ENV === 'production' ? availableParallelism() : 1;

/** Payload keys as set; production never runs without them (workflow inputs hold secrets). */
function payloadKeys(env: Environment): PayloadKey[] | undefined {
  if (env.NODE_ENV === 'production' && !env.TOLLGATE_PAYLOAD_KEYS) {
    throw new ConfigurationError(
      `TOLLGATE_PAYLOAD_KEYS must be set in production: ${payloadKeysSetting} (it is not set)`,
    );
  }
  return env.TOLLGATE_PAYLOAD_KEYS;
}

/** The social sign-in providers, by Better Auth's ids. */
export const socialProviderIds = ['github', 'google', 'discord'] as const;
export type SocialProviderId = (typeof socialProviderIds)[number];

export interface SocialProviderConfig {
  clientId: string;
  clientSecret: string;
  /** Stands in for every host of the provider (the local provider of tests and development). */
  baseUrl: string | undefined;
}

const STRIPE_API = 'https://api.stripe.com';

export type Environment = z.infer<typeof environmentSchema>;

export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}

/** Parses the environment; the first bad variable becomes a one-line ConfigurationError. */
export function parseEnvironment(source: NodeJS.ProcessEnv = process.env): Environment {
  // Treat empty strings like unset variables: `FOO= npm start` means "no FOO".
  const present = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ''));
  const result = environmentSchema.safeParse(present);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const variable = String(issue?.path[0] ?? 'environment');
  const received = present[variable];
  const got =
    received === undefined
      ? 'it is not set'
      : secretVariables.has(variable)
        ? 'its value is secret, not shown'
        : `got ${JSON.stringify(received)}`;
  throw new ConfigurationError(`${variable} must be ${issue?.message ?? 'valid'} (${got})`);
}

export interface Config {
  env: Environment['NODE_ENV'];
  logLevel: Environment['LOG_LEVEL'];
  dataDir: string;
  api: {
    host: string;
    port: number;
    publicUrl: string;
    processes: number;
    /**
     * How many of `processes` take event ingestion alone (the others pass it on to them), so
     * that ingestion never holds the event loop of a process serving reads; 0: all take all.
     */
    ingestProcesses: number;
    /** Unset: X-Forwarded-For is ignored (see api/middleware/client-ip.ts). */
    trustedProxies: TrustedProxies | undefined;
  };
  /** Worker processes (temporal/worker.ts) polling the same task queues. */
  worker: { processes: number };
  /**
   * Where uploaded files' bytes live: TOLLGATE_FILES_DIR (relative to the data folder), or the
   * S3-compatible bucket when TOLLGATE_FILES_S3_ENDPOINT is set (addressed path-style).
   */
  files: {
    storageDir: string;
    s3: S3FilesConfig | undefined;
    /** TOLLGATE_FILES_MAX_BYTES and TOLLGATE_FILES_ORGANIZATION_MAX_BYTES. */
    maxDownloadableBytes: number;
    organizationMaxBytes: number;
  };
  database: { url: string | undefined; embeddedPort: number };
  temporal: {
    address: string | undefined;
    namespace: string;
    cliPath: string | undefined;
    devPort: number;
    uiPort: number;
    uiUrl: string | undefined;
    /** Encrypt every workflow and activity payload; the first encrypts, any decrypts. */
    payloadKeys: PayloadKey[] | undefined;
  };
  stripe: {
    secretKey: string;
    apiBase: string | undefined;
    mockPath: string | undefined;
    /** Set: the hosted checkout collects cards with Stripe Elements; unset, test cards. */
    publishableKey: string | undefined;
    mockPort: number;
    /** Verifies Stripe's webhook events; unset, the webhook endpoint refuses every event. */
    webhookSecret: string | undefined;
    /** The dev/test Stripe simulator's base URL: test APIs register their webhook with it. */
    simulatorUrl: string | undefined;
  };
  mail: {
    /** Unset, `npm start` and `npm test` run an SMTP server that captures mail to files. */
    smtpUrl: string | undefined;
    from: string;
    /** Where that capture server writes each mail; set only when it runs. */
    captureDir: string | undefined;
  };
  /** Bearer token of the operations API (/api/ops); unset disables that API. */
  opsToken: string | undefined;
  /**
   * Prometheus metrics: the bearer token of the API's GET /metrics (unset: no such endpoint),
   * and where the worker serves its own (unset: nowhere), asking the same token when set.
   */
  metrics: {
    token: string | undefined;
    workerEndpoint: { host: string; port: number } | undefined;
  };
  /** Waits before each retry of a failed webhook delivery (commerce/webhooks/settings.ts). */
  webhooks: { retryDelaysSeconds: number[] };
  /** The APIs discord and github_repository grants call: the bot's and the app's credentials. */
  benefitIntegrations: BenefitIntegrationsConfig;
  /**
   * How long a checkout stays open before it expires (Polar: one hour), and how long a confirmed
   * one waits for its buyer's 3-D Secure step (the checkout workflow's default when unset).
   * With `sellerDetailsRequired`, a paid confirm of an organization that has not submitted its
   * details (`PATCH /v1/organizations/{id}` with `details`) answers 403 PaymentNotReady.
   */
  checkouts: {
    ttlSeconds: number;
    authenticationTimeoutSeconds?: number;
    /** How long an unpaid `incomplete` subscription lives (tests only; else Stripe's 23 hours). */
    incompleteSubscriptionSeconds?: number;
    sellerDetailsRequired: boolean;
  };
  /** Seconds between the runs of the upkeep schedules (processes/upkeep-schedules.ts). */
  upkeep: {
    purgeIntervalSeconds: number;
    uploadsIntervalSeconds: number;
    remindersIntervalSeconds: number;
    reconciliationIntervalSeconds: number;
  };
  /**
   * Sandbox test clocks: off, every /v1/test-clocks route answers 403 TestClockNotAvailable and
   * customers cannot be attached to one. Subscriptions without a clock never look at it.
   */
  testClocks: { enabled: boolean };
  auth: {
    /** Signs session cookies; `npm start` makes one in the data folder when unset. */
    secret: string | undefined;
    /** Origins allowed to send cookie requests and to be redirect targets; the public URL's always is. */
    trustedOrigins: string[];
    requireEmailVerification: boolean;
    /** Rate limits of sign-in, sign-up and account mail; `scale` multiplies every maximum. */
    rateLimit: { enabled: boolean; scale: number };
    /** Users granted every admin permission whatever their role (Better Auth's adminUserIds). */
    adminUserIds: string[];
    /** Keep a signed copy of the session in a cookie for 5 minutes, sparing the database. */
    sessionCookieCache: boolean;
    /** delete-user mails a confirmation link (`mail`), or deletes at once (`none`). */
    deleteUserVerification: 'mail' | 'none';
    social: {
      /** A provider is on when its client id and secret are both set. */
      providers: Partial<Record<SocialProviderId, SocialProviderConfig>>;
      /** Providers whose accounts link to a user with the same email even if unverified. */
      trustedProviders: SocialProviderId[];
      /** Let link-social link a provider account whose email differs from the user's. */
      allowDifferentEmails: boolean;
    };
    /** Better Auth's organization `teams` options; an unset maximum means no limit. */
    teams: {
      maximumTeams: number | undefined;
      maximumMembersPerTeam: number | undefined;
      allowRemovingAllTeams: boolean;
    };
    /** How many organizations a user may belong to (unset: no limit), and members per organization. */
    organizationLimit: number | undefined;
    membershipLimit: number;
    /** How long an invitation stays open, and how long before its expiry the reminder goes. */
    invitations: { lifetimeSeconds: number; reminderSeconds: number; limit: number };
    /** How long a mailed email-verification and password-reset link works. */
    tokenLifetimes: { emailVerificationSeconds: number; passwordResetSeconds: number };
    /** Unset: sign-up, sign-in and password reset need no captcha (api/middleware/captcha.ts). */
    captcha: CaptchaConfig | undefined;
  };
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const env = parseEnvironment(source);
  return {
    env: env.NODE_ENV,
    logLevel: env.LOG_LEVEL,
    dataDir: resolve(projectRoot, env.TOLLGATE_DATA_DIR),
    api: {
      host: env.TOLLGATE_API_HOST,
      port: env.TOLLGATE_API_PORT,
      publicUrl: env.TOLLGATE_PUBLIC_URL ?? `http://localhost:${env.TOLLGATE_API_PORT}`,
      processes: env.TOLLGATE_API_PROCESSES ?? processesByDefault(env),
      ingestProcesses: env.TOLLGATE_API_INGEST_PROCESSES,
      trustedProxies: env.TOLLGATE_TRUSTED_PROXIES,
    },
    worker: { processes: env.TOLLGATE_WORKER_PROCESSES ?? processesByDefault(env) },
    files: {
      storageDir: resolve(projectRoot, env.TOLLGATE_DATA_DIR, env.TOLLGATE_FILES_DIR),
      s3: s3FilesConfig(env),
      maxDownloadableBytes: env.TOLLGATE_FILES_MAX_BYTES,
      organizationMaxBytes: env.TOLLGATE_FILES_ORGANIZATION_MAX_BYTES,
    },
    database: { url: env.DATABASE_URL, embeddedPort: env.TOLLGATE_EMBEDDED_POSTGRES_PORT },
    temporal: {
      address: env.TEMPORAL_ADDRESS,
      namespace: env.TEMPORAL_NAMESPACE,
      cliPath: env.TEMPORAL_CLI_PATH,
      devPort: env.TEMPORAL_DEV_PORT,
      uiPort: env.TEMPORAL_UI_PORT,
      uiUrl: env.TEMPORAL_UI_URL,
      payloadKeys: payloadKeys(env),
    },
    stripe: {
      secretKey: env.STRIPE_SECRET_KEY,
      apiBase: env.STRIPE_API_BASE,
      mockPath: env.STRIPE_MOCK_PATH,
      publishableKey: env.STRIPE_PUBLISHABLE_KEY,
      mockPort: env.STRIPE_MOCK_PORT,
      webhookSecret: env.STRIPE_WEBHOOK_SECRET,
      simulatorUrl: env.STRIPE_SIMULATOR_URL,
    },
    mail: {
      smtpUrl: env.SMTP_URL,
      from: env.MAIL_FROM,
      captureDir: env.MAIL_CAPTURE_DIR && resolve(projectRoot, env.MAIL_CAPTURE_DIR),
    },
    opsToken: env.TOLLGATE_OPS_TOKEN,
    metrics: {
      token: env.TOLLGATE_METRICS_TOKEN,
      workerEndpoint:
        env.TOLLGATE_WORKER_METRICS_PORT === undefined
          ? undefined
          : { host: env.TOLLGATE_WORKER_METRICS_HOST, port: env.TOLLGATE_WORKER_METRICS_PORT },
    },
    webhooks: { retryDelaysSeconds: env.TOLLGATE_WEBHOOK_RETRY_DELAYS.split(',').map(Number) },
    benefitIntegrations: {
      discord: {
        apiBaseUrl: env.TOLLGATE_DISCORD_API_BASE_URL,
        botToken: env.TOLLGATE_DISCORD_BOT_TOKEN,
        client: discordClient(env),
      },
      github: {
        apiBaseUrl: env.TOLLGATE_GITHUB_API_BASE_URL,
        token: env.TOLLGATE_GITHUB_TOKEN,
        app: githubApp(env),
      },
    },
    checkouts: {
      ttlSeconds: env.TOLLGATE_CHECKOUT_TTL_SECONDS,
      authenticationTimeoutSeconds: env.TOLLGATE_CHECKOUT_AUTHENTICATION_TIMEOUT_SECONDS,
      sellerDetailsRequired: env.TOLLGATE_REQUIRE_SELLER_DETAILS === 'on',
    },
    upkeep: {
      purgeIntervalSeconds: env.TOLLGATE_UPKEEP_PURGE_INTERVAL_SECONDS,
      uploadsIntervalSeconds: env.TOLLGATE_UPKEEP_UPLOADS_INTERVAL_SECONDS,
      remindersIntervalSeconds: env.TOLLGATE_UPKEEP_REMINDERS_INTERVAL_SECONDS,
      reconciliationIntervalSeconds: env.TOLLGATE_UPKEEP_RECONCILIATION_INTERVAL_SECONDS,
    },
    testClocks: {
      enabled:
        (env.TOLLGATE_TEST_CLOCKS ?? (env.NODE_ENV === 'production' ? 'off' : 'on')) === 'on',
    },
    auth: {
      secret: env.TOLLGATE_AUTH_SECRET,
      trustedOrigins: (env.TOLLGATE_TRUSTED_ORIGINS ?? '')
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean)
        .map((origin) => new URL(origin).origin),
      requireEmailVerification: env.TOLLGATE_REQUIRE_EMAIL_VERIFICATION === 'true',
      rateLimit: rateLimitConfig(env.TOLLGATE_AUTH_RATE_LIMIT),
      adminUserIds: (env.TOLLGATE_ADMIN_USER_IDS ?? '')
        .split(',')
        .map((id) => id.trim().toLowerCase())
        .filter(Boolean),
      sessionCookieCache: env.TOLLGATE_SESSION_COOKIE_CACHE === 'on',
      deleteUserVerification: env.TOLLGATE_DELETE_USER_VERIFICATION,
      social: {
        providers: {
          github: socialProvider(env, 'GITHUB'),
          google: socialProvider(env, 'GOOGLE'),
          discord: socialProvider(env, 'DISCORD'),
        },
        trustedProviders: (env.TOLLGATE_OAUTH_TRUSTED_PROVIDERS ?? '')
          .split(',')
          .map((id) => id.trim())
          .filter((id): id is SocialProviderId => socialProviderIds.some((known) => known === id)),
        allowDifferentEmails: env.TOLLGATE_OAUTH_ALLOW_DIFFERENT_EMAILS === 'true',
      },
      teams: {
        maximumTeams: env.TOLLGATE_MAXIMUM_TEAMS,
        maximumMembersPerTeam: env.TOLLGATE_MAXIMUM_MEMBERS_PER_TEAM,
        allowRemovingAllTeams: env.TOLLGATE_ALLOW_REMOVING_ALL_TEAMS === 'true',
      },
      organizationLimit: env.TOLLGATE_ORGANIZATION_LIMIT,
      membershipLimit: env.TOLLGATE_MEMBERSHIP_LIMIT,
      invitations: {
        lifetimeSeconds: env.TOLLGATE_INVITATION_LIFETIME_SECONDS,
        reminderSeconds: env.TOLLGATE_INVITATION_REMINDER_SECONDS,
        limit: env.TOLLGATE_INVITATION_LIMIT,
      },
      tokenLifetimes: {
        emailVerificationSeconds: env.TOLLGATE_EMAIL_VERIFICATION_TOKEN_TTL_SECONDS,
        passwordResetSeconds: env.TOLLGATE_PASSWORD_RESET_TOKEN_TTL_SECONDS,
      },
      captcha: captchaConfig(env),
    },
  };
}

/** The captcha check when a provider is set; a provider needs its secret, and a secret a provider. */
function captchaConfig(env: Environment): CaptchaConfig | undefined {
  const provider = env.TOLLGATE_CAPTCHA_PROVIDER;
  const secretKey = env.TOLLGATE_CAPTCHA_SECRET_KEY;
  if (!provider && !secretKey) return undefined;
  if (!provider) {
    throw new ConfigurationError(
      'TOLLGATE_CAPTCHA_PROVIDER must be set when TOLLGATE_CAPTCHA_SECRET_KEY is (turnstile, recaptcha or hcaptcha)',
    );
  }
  if (!secretKey) {
    throw new ConfigurationError(
      'TOLLGATE_CAPTCHA_SECRET_KEY must be set when TOLLGATE_CAPTCHA_PROVIDER is (the secret key of the site)',
    );
  }
  return {
    provider,
    secretKey,
    verifyUrl: env.TOLLGATE_CAPTCHA_VERIFY_URL,
    minScore: env.TOLLGATE_CAPTCHA_MIN_SCORE,
  };
}

/** A provider's settings when its id and secret are set; one without the other is an error. */
function socialProvider(
  env: Environment,
  prefix: 'GITHUB' | 'GOOGLE' | 'DISCORD',
): SocialProviderConfig | undefined {
  const clientId = env[`${prefix}_CLIENT_ID`];
  const clientSecret = env[`${prefix}_CLIENT_SECRET`];
  if (!clientId && !clientSecret) return undefined;
  if (!clientId || !clientSecret) {
    const [missing, present] = clientId
      ? ['CLIENT_SECRET', 'CLIENT_ID']
      : ['CLIENT_ID', 'CLIENT_SECRET'];
    throw new ConfigurationError(
      `${prefix}_${missing} must be set when ${prefix}_${present} is (both enable the provider)`,
    );
  }
  return { clientId, clientSecret, baseUrl: env[`TOLLGATE_OAUTH_${prefix}_BASE_URL`] };
}

export interface BenefitIntegrationsConfig {
  discord: {
    apiBaseUrl: string;
    botToken: string | undefined;
    /** The bot's OAuth2 client, for "Connect a Discord server"; unset, that flow is off. */
    client?: { id: string; secret: string };
  };
  github: {
    apiBaseUrl: string;
    token: string | undefined;
    /** The GitHub App of "Connect GitHub"; unset, that flow is off. */
    app?: GitHubAppConfig;
  };
}

export interface GitHubAppConfig {
  id: string;
  /** PEM; signs the app's RS256 JWTs. */
  privateKey: string;
  /** The app's public page (`https://github.com/apps/<slug>`): installing starts there. */
  url: string;
}

/** Settings that go together: all set, or none (the feature is then off). */
function allOrNone<Name extends keyof Environment>(env: Environment, names: Name[], what: string) {
  const set = names.filter((name) => env[name] !== undefined);
  if (set.length === 0) return null;
  const missing = names.find((name) => env[name] === undefined);
  if (missing) {
    throw new ConfigurationError(
      `${missing} must be set when ${set.join(' and ')} is (${what} needs ${names.join(', ')})`,
    );
  }
  return names.map((name) => String(env[name]));
}

function discordClient(env: Environment): BenefitIntegrationsConfig['discord']['client'] {
  const names = ['TOLLGATE_DISCORD_CLIENT_ID', 'TOLLGATE_DISCORD_CLIENT_SECRET'] as const;
  const values = allOrNone(env, [...names], 'connecting Discord servers');
  if (!values) return undefined;
  if (!env.TOLLGATE_DISCORD_BOT_TOKEN) {
    throw new ConfigurationError(
      'TOLLGATE_DISCORD_BOT_TOKEN must be set when TOLLGATE_DISCORD_CLIENT_ID is (the installed bot acts with it)',
    );
  }
  const [id = '', secret = ''] = values;
  return { id, secret };
}

function githubApp(env: Environment): GitHubAppConfig | undefined {
  const names = [
    'TOLLGATE_GITHUB_APP_ID',
    'TOLLGATE_GITHUB_APP_PRIVATE_KEY',
    'TOLLGATE_GITHUB_APP_URL',
  ] as const;
  const values = allOrNone(env, [...names], 'connecting GitHub');
  if (!values) return undefined;
  const [id = '', privateKey = '', url = ''] = values;
  return { id, privateKey, url: url.replace(/\/+$/, '') };
}

/** An S3-compatible bucket, addressed path-style (`<endpoint>/<bucket>/<key>`). */
export interface S3FilesConfig {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** The S3 bucket for files when an endpoint is set; it then needs a bucket and both keys. */
function s3FilesConfig(env: Environment): S3FilesConfig | undefined {
  const endpoint = env.TOLLGATE_FILES_S3_ENDPOINT;
  if (!endpoint) return undefined;
  const required = (
    variable:
      | 'TOLLGATE_FILES_S3_BUCKET'
      | 'TOLLGATE_FILES_S3_ACCESS_KEY_ID'
      | 'TOLLGATE_FILES_S3_SECRET_ACCESS_KEY',
  ) => {
    const value = env[variable];
    if (value) return value;
    throw new ConfigurationError(
      `${variable} must be set when TOLLGATE_FILES_S3_ENDPOINT is (it is not set)`,
    );
  };
  return {
    endpoint,
    bucket: required('TOLLGATE_FILES_S3_BUCKET'),
    region: env.TOLLGATE_FILES_S3_REGION,
    accessKeyId: required('TOLLGATE_FILES_S3_ACCESS_KEY_ID'),
    secretAccessKey: required('TOLLGATE_FILES_S3_SECRET_ACCESS_KEY'),
  };
}

/** `on` is the production limits, `off` none, and a number scales every limit by it. */
function rateLimitConfig(setting: string): Config['auth']['rateLimit'] {
  if (setting === 'off') return { enabled: false, scale: 1 };
  return { enabled: true, scale: setting === 'on' ? 1 : Number(setting) };
}

/**
 * The settings of a running API or worker process: unlike start-up, these need the services'
 * addresses, which `npm start` and the test runner fill in after they launch the services.
 */
export interface RuntimeConfig extends Config {
  database: Config['database'] & { url: string };
  temporal: Config['temporal'] & { address: string };
  stripe: Config['stripe'] & { apiBase: string };
  mail: Config['mail'] & { smtpUrl: string };
}

export function loadRuntimeConfig(source: NodeJS.ProcessEnv = process.env): RuntimeConfig {
  const config = loadConfig(source);
  const { url: databaseUrl } = config.database;
  const { address } = config.temporal;
  const { apiBase } = config.stripe;
  const { smtpUrl } = config.mail;
  if (!databaseUrl) throw new ConfigurationError('DATABASE_URL must be set (a postgres:// URL)');
  if (!address) throw new ConfigurationError('TEMPORAL_ADDRESS must be set (host:port)');
  if (!smtpUrl) throw new ConfigurationError('SMTP_URL must be set (an smtp:// or smtps:// URL)');
  // In production the Stripe SDK talks to Stripe itself; elsewhere to stripe-mock.
  const stripeApiBase = apiBase ?? (config.env === 'production' ? STRIPE_API : undefined);
  if (!stripeApiBase) {
    throw new ConfigurationError('STRIPE_API_BASE must be set (an http(s) URL)');
  }
  return {
    ...config,
    database: { ...config.database, url: databaseUrl },
    temporal: { ...config.temporal, address },
    stripe: { ...config.stripe, apiBase: stripeApiBase },
    mail: { ...config.mail, smtpUrl },
  };
}
