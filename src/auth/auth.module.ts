import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AuditModule } from '../audit/audit.module.js';
import { AdminCredential } from './admin-credential.js';
import { AuthChangesListener } from './auth-changes.listener.js';
import { AUTHENTICATION_CACHE_LIMITS, AuthenticationCache } from './authentication-cache.js';
import { AuthGuard } from './auth.guard.js';
import { ClientTokenEntity } from './client-token.entity.js';
import { OperatorsAdminController } from './operators/operators-admin.controller.js';
import { OperatorsService } from './operators/operators.service.js';
import { CsrfInterceptor, CsrfProtection } from './sessions/csrf.js';
import { SessionsService } from './sessions/sessions.service.js';
import { SignInLinksAdminController } from './sign-in-links/sign-in-links-admin.controller.js';
import { SignInLinksService } from './sign-in-links/sign-in-links.service.js';
import { TokensController } from './tokens.controller.js';
import { TokensService } from './tokens.service.js';

/**
 * Client tokens, the admin credentials (ADMIN_TOKEN, operator tokens), the dashboard's sign-in
 * links, sessions and CSRF protection, and the global deny-by-default guard.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ClientTokenEntity]), AccountsModule, AuditModule],
  controllers: [TokensController, OperatorsAdminController, SignInLinksAdminController],
  providers: [
    // One per app (a factory: tests run two apps in one process, as two replicas).
    { provide: AuthenticationCache, useFactory: () => new AuthenticationCache(AUTHENTICATION_CACHE_LIMITS) },
    AuthChangesListener,
    TokensService,
    OperatorsService,
    AdminCredential,
    SessionsService,
    SignInLinksService,
    CsrfProtection,
    CsrfInterceptor,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [TokensService, SessionsService, SignInLinksService, CsrfProtection, CsrfInterceptor],
})
export class AuthModule {}
