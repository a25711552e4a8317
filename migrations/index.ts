import { AccountsAndTokens1795400000000 } from './1795400000000-accounts-and-tokens.js';
import { Declarations1795500000000 } from './1795500000000-declarations.js';
import { RateLimits1795600000000 } from './1795600000000-rate-limits.js';
import { DeclarationsCatalogueVersion1795700000000 } from './1795700000000-declarations-catalogue-version.js';
import { Operator1795740000000 } from './1795740000000-operator.js';
import { Dashboard1795800000000 } from './1795800000000-dashboard.js';
import { AuthChangeNotifications1795900000000 } from './1795900000000-auth-change-notifications.js';
import { Hardening1796000000000 } from './1796000000000-hardening.js';
import { Sandbox1797000000000 } from './1797000000000-sandbox.js';
import { OperatorBook1797100000000 } from './1797100000000-operator-book.js';
import { Products1797200000000 } from './1797200000000-products.js';
import { ClientLanguage1797300000000 } from './1797300000000-client-language.js';
import { ProductsSandbox1797400000000 } from './1797400000000-products-sandbox.js';
import { DeclaredByName1797500000000 } from './1797500000000-declared-by-name.js';
import { Reminders1797560000000 } from './1797560000000-reminders.js';
import { SignInLinkAddress1797610000000 } from './1797610000000-sign-in-link-address.js';
import { MailOutbox1797620000000 } from './1797620000000-mail-outbox.js';
import { IdempotencyClaimOwner1797680000000 } from './1797680000000-idempotency-claim-owner.js';
import { DeclarationUnitsSold1797700000000 } from './1797700000000-declaration-units-sold.js';
import { ProductFileColumns1797710000000 } from './1797710000000-product-file-columns.js';
import { OperatorConsole1797730000001 } from './1797730000001-operator-console.js';
import { LanguageCodes1797760000001 } from './1797760000001-language-codes.js';
import { DeclarationIdentityHash1797800000000 } from './1797800000000-declaration-identity-hash.js';

/** Every migration, in order. A new migration is added here as well as in this folder. */
export const MIGRATIONS: Function[] = [
  AccountsAndTokens1795400000000,
  Declarations1795500000000,
  RateLimits1795600000000,
  DeclarationsCatalogueVersion1795700000000,
  Operator1795740000000,
  Dashboard1795800000000,
  AuthChangeNotifications1795900000000,
  Hardening1796000000000,
  Sandbox1797000000000,
  OperatorBook1797100000000,
  Products1797200000000,
  ClientLanguage1797300000000,
  ProductsSandbox1797400000000,
  DeclaredByName1797500000000,
  Reminders1797560000000,
  SignInLinkAddress1797610000000,
  MailOutbox1797620000000,
  IdempotencyClaimOwner1797680000000,
  DeclarationUnitsSold1797700000000,
  ProductFileColumns1797710000000,
  OperatorConsole1797730000001,
  LanguageCodes1797760000001,
  DeclarationIdentityHash1797800000000,
];
