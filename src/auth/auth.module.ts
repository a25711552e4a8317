import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AuditModule } from '../audit/audit.module.js';
import { AuthGuard } from './auth.guard.js';
import { ClientBearerStrategy } from './bearer/client-bearer.strategy.js';
import { OperatorBearerStrategy } from './bearer/operator-bearer.strategy.js';
import { AdminCredential } from './operators/admin-credential.js';
import { OperatorTokenEntity } from './operators/operator-token.entity.js';
import { OperatorSessionsRepository } from './operators/operator-sessions.repository.js';
import { OperatorSessionsService } from './operators/operator-sessions.service.js';
import { OperatorsAdminController } from './operators/operators-admin.controller.js';
import { OperatorSessionsAdminController } from './operators/operator-sessions-admin.controller.js';
import { OperatorTokensRepository } from './operators/operator-tokens.repository.js';
import { OperatorsService } from './operators/operators.service.js';
import { CsrfInterceptor, CsrfProtection } from './sessions/csrf.js';
import { ServiceSecretsRepository } from '../database/service-secrets.repository.js';
import { SessionsAdminController } from './sessions/sessions-admin.controller.js';
import { SessionsRepository } from './sessions/sessions.repository.js';
import { SessionsService } from './sessions/sessions.service.js';
import { SignInLinksAdminController } from './sign-in-links/sign-in-links-admin.controller.js';
import { SignInLinksRepository } from './sign-in-links/sign-in-links.repository.js';
import { SignInLinksService } from './sign-in-links/sign-in-links.service.js';
import { AuthChangesListener } from './tokens/auth-changes.listener.js';
import { AUTHENTICATION_CACHE_LIMITS, AuthenticationCache } from './tokens/authentication-cache.js';
import { ClientTokenEntity } from './tokens/client-token.entity.js';
import { ClientTokenVerifier } from './tokens/client-token-verifier.js';
import { ClientTokensRepository } from './tokens/client-tokens.repository.js';
import { ClientTokensService } from './tokens/client-tokens.service.js';
import { TokenUseRecorder } from './tokens/token-use-recorder.js';
import { TokensAdminController } from './tokens/tokens-admin.controller.js';

/**
 * Credentials: client tokens (tokens/), the operator's (ADMIN_TOKEN and operator tokens,
 * operators/), the passport-http-bearer strategies that verify both (bearer/), the dashboard's
 * sign-in links and sessions with their CSRF protection, and the global deny-by-default guard
 * (registered in order with the rest of the request pipeline by AppModule).
 */
@Module({
  imports: [TypeOrmModule.forFeature([ClientTokenEntity, OperatorTokenEntity]), AccountsModule, AuditModule],
  controllers: [
    TokensAdminController,
    OperatorsAdminController,
    OperatorSessionsAdminController,
    SignInLinksAdminController,
    SessionsAdminController,
  ],
  providers: [
    // One per app (a factory: tests run two apps in one process, as two replicas).
    { provide: AuthenticationCache, useFactory: () => new AuthenticationCache(AUTHENTICATION_CACHE_LIMITS) },
    AuthChangesListener,
    ClientTokensRepository,
    TokenUseRecorder,
    ClientTokenVerifier,
    ClientTokensService,
    OperatorTokensRepository,
    OperatorsService,
    OperatorSessionsRepository,
    OperatorSessionsService,
    AdminCredential,
    ClientBearerStrategy,
    OperatorBearerStrategy,
    SessionsRepository,
    SessionsService,
    SignInLinksRepository,
    SignInLinksService,
    ServiceSecretsRepository,
    CsrfProtection,
    CsrfInterceptor,
    AuthGuard,
  ],
  exports: [
    AuthGuard,
    ClientTokenVerifier,
    ClientTokensService,
    SessionsService,
    SignInLinksService,
    OperatorSessionsService,
    CsrfProtection,
    CsrfInterceptor,
  ],
})
export class AuthModule {}
