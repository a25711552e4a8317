import { AccountsAndTokens1795400000000 } from './1795400000000-accounts-and-tokens.js';

/** Every migration, in order. A new migration is added here as well as in this folder. */
export const MIGRATIONS: Function[] = [AccountsAndTokens1795400000000];
