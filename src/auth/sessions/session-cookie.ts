import type { CookieOptions } from 'express';

/** Idle timeout: a session unused this long is over. */
export const SESSION_IDLE_MS = 30 * 60_000;
/**
 * A session's `last_seen_at` is written at most this often (a page view is a read): an active
 * session is seen again within a minute of its last write. The idle rule is judged on
 * `last_seen_at`, so at worst a session ends up to this much earlier than 30 minutes after its
 * last request, never later.
 */
export const SESSION_SEEN_RESOLUTION_MS = 60_000;
/** Absolute lifetime: however active, a session ends this long after sign-in. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60_000;

/**
 * The dashboard's cookies (`name` `epr`; the operator's console has its own, `epr_operator`). On https they carry the `__Host-` prefix (the browser then insists on
 * Secure, path `/` and no Domain: no sibling sub-domain can set or shadow them); on plain http
 * (a local start) the same names without it.
 */
export function cookieSettings(publicBaseUrl: string, name = 'epr'): { session: string; csrf: string; options: CookieOptions } {
  const secure = new URL(publicBaseUrl).protocol === 'https:';
  const prefix = secure ? '__Host-' : '';
  return {
    session: `${prefix}${name}_session`,
    csrf: `${prefix}${name}_csrf`,
    options: { httpOnly: true, sameSite: 'lax', secure, path: '/' },
  };
}
