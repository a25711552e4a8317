import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { DashboardPage } from '../caller/audience.js';
import { type AuthenticatedClient, CurrentClient } from '../caller/current-client.js';
import type { Actor } from '../caller/actor.js';
import { ClientTokensService } from '../auth/tokens/client-tokens.service.js';
import { Accepts, type FormBody } from '../common/http/request-body.js';
import { NotFoundProblem } from '../common/problem/problem.js';
import { TOKEN_MODES, type TokenMode } from '../common/token-format.js';
import { DashboardViews } from './dashboard-views.js';
import { field } from './form-fields.js';

/** The longest a token may live, as on the admin API. */
const MAX_EXPIRY_DAYS = 2 * 366;
const DAY_MS = 86_400_000;

const actorOf = (req: Request, client: AuthenticatedClient): Actor => ({
  operator: { kind: 'client', clientId: client.clientId, sessionId: client.sessionId ?? null },
  requestId: typeof req.id === 'string' ? req.id : null,
});

/** The client's own API tokens: the same tokens as the admin API's (the operator sees these too). */
@ApiExcludeController()
@DashboardPage()
@Controller('dashboard/tokens')
export class TokensPageController {
  constructor(
    private readonly views: DashboardViews,
    private readonly tokens: ClientTokensService,
  ) {}

  @Get()
  async list(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentClient() client: AuthenticatedClient,
    @Query('revoked') revoked?: string,
  ): Promise<void> {
    const m = this.views.messages(req, res).dashboardPages.tokens;
    await this.page(req, res, client, { notice: typeof revoked === 'string' ? m.revoked(revoked) : null });
  }

  @Post()
  @Accepts('form')
  async create(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentClient() client: AuthenticatedClient,
    @Body() body: FormBody,
  ): Promise<void> {
    const name = field(body, 'name').trim();
    const expires = field(body, 'expires').trim();
    // A form from before test tokens sends no mode: a live token, as it always was.
    const modeField = field(body, 'mode') || 'live';
    const m = this.views.messages(req, res).dashboardPages.tokens;
    const errors: Record<string, string> = {};
    if (name.length < 1 || name.length > 100) errors.name = m.nameError;
    const mode = TOKEN_MODES.find((known) => known === modeField);
    if (!mode) errors.mode = m.modeError;
    let expiresAt: Date | null = null;
    if (expires !== '') {
      const date = /^\d{4}-\d{2}-\d{2}$/.test(expires) ? new Date(`${expires}T23:59:59.999Z`) : undefined;
      if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== expires) errors.expires = m.expiresInvalid;
      else if (date.getTime() <= Date.now()) errors.expires = m.expiresPast;
      else if (date.getTime() > Date.now() + MAX_EXPIRY_DAYS * DAY_MS) errors.expires = m.expiresTooFar;
      else expiresAt = date;
    }
    if (Object.keys(errors).length > 0)
      return this.page(req, res, client, { errors, values: { name, expires, mode: mode ?? 'live' } }, 422);
    const issued = await this.tokens.issue(client.clientId, { name, expiresAt, mode }, actorOf(req, client));
    this.views.render(req, res, 'token-created', { title: m.createdTitle, nav: 'tokens' }, { issued }, 201);
  }

  @Get(':id/revoke')
  async confirmRevoke(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentClient() client: AuthenticatedClient,
    @Param('id') id: string,
  ): Promise<void> {
    const token = (await this.tokens.list(client.clientId)).find((t) => t.id === id);
    if (!token) throw new NotFoundProblem('Token');
    this.views.render(
      req,
      res,
      'token-revoke',
      { title: this.views.messages(req, res).dashboardPages.tokens.revokeTitle, nav: 'tokens' },
      { token },
    );
  }

  @Post(':id/revoke')
  @Accepts('form')
  async revoke(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentClient() client: AuthenticatedClient,
    @Param('id') id: string,
  ): Promise<void> {
    const token = (await this.tokens.list(client.clientId)).find((t) => t.id === id);
    if (!token) throw new NotFoundProblem('Token');
    await this.tokens.revoke(client.clientId, id, actorOf(req, client));
    res.redirect(303, `/dashboard/tokens?revoked=${encodeURIComponent(token.prefix)}`);
  }

  private async page(
    req: Request,
    res: Response,
    client: AuthenticatedClient,
    extra: Record<string, unknown>,
    status = 200,
  ): Promise<void> {
    const tokens = await this.tokens.list(client.clientId);
    const now = Date.now();
    this.views.render(
      req,
      res,
      'tokens',
      { title: this.views.messages(req, res).dashboardPages.tokens.title, nav: 'tokens' },
      {
        tokens: tokens.map((t) => ({
          ...t,
          state: t.revokedAt ? 'revoked' : t.expiresAt && t.expiresAt.getTime() <= now ? 'expired' : 'active',
        })),
        errors: {},
        values: { name: '', expires: '', mode: 'live' satisfies TokenMode },
        notice: null,
        ...extra,
      },
      status,
    );
  }
}
