import type { Account } from '../accounts/account.js';
import type { AuthenticatedClient } from '../caller/current-client.js';

/**
 * What a verified client credential (a token, or a dashboard session) establishes: who is calling,
 * and the client's account read in the same query. The guard hands the first to the caller layer
 * (`@CurrentClient()`) and the account to the accounts layer (`@CurrentAccount()`).
 */
export interface VerifiedClient extends AuthenticatedClient {
  account: Account;
}
