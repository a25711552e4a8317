import { isIP } from 'node:net';
import { z } from 'zod';
import { parseClientToken } from '../common/token-format.js';

/**
 * The service's configuration: one typed object built from the environment.
 * This is the only place that reads environment variables (see `loadConfig`).
 */
export interface AppConfig {
  port: number;
  host: string;
  /** PostgreSQL connection string; undefined → embedded PGlite under `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** Operator bearer secret; undefined → admin API disabled. */
  adminToken: string | undefined;
  publicBaseUrl: string;
  referenceBaseUrl: string;
  clientBaseUrl: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  migrationsRun: boolean;
  /** Requests per minute; public files are never limited (see rate-limit/throttlers.ts). */
  rateLimits: {
    /** Any request of one client, all its tokens together. */
    client: number;
    /** A client's writes (POST), on top of `client`. */
    clientWrite: number;
    /** One operator's requests. */
    admin: number;
    /** Failed authentications from one address; past it, the address gets 429 before any token is looked up. */
    authFailures: number;
    /** Dashboard sign-in requests (e-mail form, sign-in links) from one address. */
    signIn: number;
    /** Sign-in e-mails asked for one e-mail address. */
    signInEmails: number;
  };
  /** Express `trust proxy`: which proxies' `X-Forwarded-For` gives the client address (false: none). */
  trustProxy: boolean | number | string[];
  /**
   * The service's e-mail: the SMTP server (undefined → no mail, e-mail sign-in off), the sender's
   * address, and its display name (undefined → the service's name in the mail's language).
   */
  mail: { smtpUrl: string | undefined; from: string; fromName: string | undefined };
  /** The operator's contact address, shown on the site and in index.json; required in production (NODE_ENV=production). */
  contactEmail: string | undefined;
  /** Prometheus metrics on a port of their own (never the public one); undefined → no metrics. */
  metrics: { port: number; host: string } | undefined;
}

/** Express's names for address ranges in `trust proxy`. */
const PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

function isProxyAddress(item: string): boolean {
  if (PROXY_RANGES.includes(item)) return true;
  const [address = '', bits, extra] = item.split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
}

const url = (protocols: string[]) =>
  z
    .string()
    .trim()
    .refine(
      (value) => {
        try {
          return protocols.includes(new URL(value).protocol);
        } catch {
          return false;
        }
      },
      `must be a URL (${protocols.join(' or ')})`,
    );

const httpUrl = url(['http:', 'https:']).transform((value) => value.replace(/\/+$/, ''));

const perMinute = (fallback: number) =>
  z.coerce
    .number({ error: 'must be a whole number of requests per minute, at least 1' })
    .int('must be a whole number of requests per minute, at least 1')
    .min(1, 'must be a whole number of requests per minute, at least 1')
    .default(fallback);

/** A secret of one repeated character, a handful of distinct ones, or one short pattern over and over. */
function isLowEntropy(secret: string): boolean {
  if (new Set(secret).size < 10) return true;
  for (let period = 1; period <= secret.length / 2; period++) {
    if (secret.slice(period) === secret.slice(0, secret.length - period)) return true;
  }
  return false;
}

const schema = z.object({
  PORT: z.coerce
    .number({ error: 'must be a whole number from 0 to 65535' })
    .int('must be a whole number from 0 to 65535')
    .min(0, 'must be a whole number from 0 to 65535')
    .max(65535, 'must be a whole number from 0 to 65535')
    .default(3000),
  HOST: z.string().trim().min(1, 'must not be empty').default('0.0.0.0'),
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  DATA_DIR: z.string().trim().min(1, 'must not be empty').default('./data'),
  ADMIN_TOKEN: z
    .string()
    .min(32, 'must be at least 32 characters long')
    .refine((value) => value.trim() === value, 'must not start or end with white space')
    // The guard tells the two kinds apart by shape before hashing anything (auth.guard.ts).
    .refine((value) => !parseClientToken(value).ok, 'must not be a client token (eprc_… or eprt_…): generate a secret of its own')
    .refine(
      (value) => !isLowEntropy(value),
      'looks guessable (too few distinct characters, or a repeated pattern): generate one, e.g. `openssl rand -base64 36`',
    )
    .optional(),
  PUBLIC_BASE_URL: httpUrl.optional(),
  REFERENCE_BASE_URL: httpUrl.optional(),
  CLIENT_BASE_URL: httpUrl.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MIGRATIONS_RUN: z
    .enum(['true', 'false'], { error: 'must be "true" or "false"' })
    .default('true')
    .transform((value) => value === 'true'),
  RATE_LIMIT_CLIENT_PER_MINUTE: perMinute(600),
  RATE_LIMIT_CLIENT_WRITES_PER_MINUTE: perMinute(60),
  RATE_LIMIT_OPERATOR_PER_MINUTE: perMinute(120),
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: perMinute(60),
  RATE_LIMIT_SIGN_IN_PER_MINUTE: perMinute(10),
  RATE_LIMIT_SIGN_IN_EMAILS_PER_MINUTE: perMinute(3),
  SMTP_URL: url(['smtp:', 'smtps:']).optional(),
  MAIL_FROM: z.email('must be an e-mail address, e.g. no-reply@example.org').optional(),
  MAIL_FROM_NAME: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(100, 'must be at most 100 characters')
    .refine(
      (value) => !/[\p{Cc}\p{Cf}\u2028\u2029<>"]/u.test(value),
      'must be a plain name: no control characters, quotes or angle brackets',
    )
    .optional(),
  CONTACT_EMAIL: z.email('must be an e-mail address, e.g. contact@example.org').optional(),
  NODE_ENV: z.string().optional(),
  METRICS_PORT: z.coerce
    .number({ error: 'must be a whole number from 1 to 65535' })
    .int('must be a whole number from 1 to 65535')
    .min(1, 'must be a whole number from 1 to 65535')
    .max(65535, 'must be a whole number from 1 to 65535')
    .optional(),
  METRICS_HOST: z.string().trim().min(1, 'must not be empty').default('127.0.0.1'),
  TRUST_PROXY: z
    .string()
    .trim()
    .default('false')
    .transform((value, ctx) => {
      if (value === 'true' || value === 'false') return value === 'true';
      if (/^\d{1,2}$/.test(value)) return Number(value);
      const items = value.split(',').map((item) => item.trim());
      if (items.every(isProxyAddress)) return items;
      ctx.addIssue({
        code: 'custom',
        message:
          'must be "true", "false", a number of proxies, or a comma-separated list of proxy addresses (IP, IP/bits, loopback, linklocal, uniquelocal)',
      });
      return z.NEVER;
    }),
});

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Builds the configuration; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  // An empty variable counts as unset, as in most shells' `VAR= cmd`.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.NODE_ENV === 'production' && e.CONTACT_EMAIL === undefined) {
    throw new ConfigError(
      'Invalid configuration:\n  CONTACT_EMAIL: must be set in production (NODE_ENV=production): the address people write to, shown on the site and in index.json',
    );
  }
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT === e.PORT) {
    throw new ConfigError(
      'Invalid configuration:\n  METRICS_PORT: must differ from PORT (the metrics are never served on the public port)',
    );
  }
  const publicBaseUrl = e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    adminToken: e.ADMIN_TOKEN,
    publicBaseUrl,
    referenceBaseUrl: e.REFERENCE_BASE_URL ?? `${publicBaseUrl}/api/v1`,
    clientBaseUrl: e.CLIENT_BASE_URL ?? `${publicBaseUrl}/api/v1`,
    logLevel: e.LOG_LEVEL,
    migrationsRun: e.MIGRATIONS_RUN,
    rateLimits: {
      client: e.RATE_LIMIT_CLIENT_PER_MINUTE,
      clientWrite: e.RATE_LIMIT_CLIENT_WRITES_PER_MINUTE,
      admin: e.RATE_LIMIT_OPERATOR_PER_MINUTE,
      authFailures: e.RATE_LIMIT_AUTH_FAILURES_PER_MINUTE,
      signIn: e.RATE_LIMIT_SIGN_IN_PER_MINUTE,
      signInEmails: e.RATE_LIMIT_SIGN_IN_EMAILS_PER_MINUTE,
    },
    trustProxy: e.TRUST_PROXY,
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM ?? `no-reply@${new URL(publicBaseUrl).hostname}`, fromName: e.MAIL_FROM_NAME },
    contactEmail: e.CONTACT_EMAIL,
    metrics: e.METRICS_PORT === undefined ? undefined : { port: e.METRICS_PORT, host: e.METRICS_HOST },
  };
}
