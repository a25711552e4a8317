import type { StreamObligations } from './obligations.js';

/** What an account has declared and still has to, per stream of its confirmed profile (none while it is pending). */
export interface AccountObligations {
  clientId: string;
  accountStatus: 'pending' | 'confirmed';
  /** Why nothing is due yet, while the account is pending; null once confirmed. */
  detail: string | null;
  /** Today's date in France. */
  today: string;
  catalogueVersion: number;
  streams: StreamObligations[];
}
