import { AUTHENTICATED_CLIENT, type RequestWithClient } from '../caller/current-client.js';
import type { TokenMode } from '../common/token-format.js';
import type { Submitter } from './declarations.repository.js';

/** Who files a declaration, in which request and into which data: what the revision and the audit trail record. */
export interface SubmissionOrigin {
  submitter: Submitter;
  requestId: string | null;
  /** The caller's data: `test` with a sandbox token (the dashboard is live). */
  mode: TokenMode;
  /** The full name a person typed to declare it (the dashboard's check page); absent through the API. */
  declaredByName?: string;
}

/**
 * The origin of a submission made by an authenticated client request: its token, else its
 * dashboard session (the guard has set the caller before any route runs).
 */
export function submissionOrigin(req: RequestWithClient & { id?: unknown }): SubmissionOrigin {
  const client = req[AUTHENTICATED_CLIENT];
  if (!client) throw new Error('submissionOrigin() on a request not authenticated as a client');
  const submitter: Submitter =
    client.tokenId !== null ? { type: 'token', tokenId: client.tokenId } : { type: 'dashboard', sessionId: client.sessionId ?? null };
  return { submitter, requestId: typeof req.id === 'string' ? req.id : null, mode: client.mode };
}
