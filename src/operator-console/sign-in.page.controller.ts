import { Body, Controller, Get, Logger, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { OperatorSessionsService } from '../auth/operators/operator-sessions.service.js';
import { SIGN_IN_LINK_TTL_MS } from '../auth/sign-in-links/sign-in-links.service.js';
import { type Actor, CurrentActor, OPERATOR_SESSION, type RequestWithOperator } from '../caller/actor.js';
import { OperatorPage, PublicForm } from '../caller/audience.js';
import { checkEmail } from '../common/email-address.js';
import { Accepts, type FormBody } from '../common/http/request-body.js';
import { field } from '../dashboard/form-fields.js';
import { SignInLimits } from '../rate-limit/sign-in-limits.js';
import { OperatorViews } from './operator-views.js';

const MINUTES = SIGN_IN_LINK_TTL_MS / 60_000;
const requestIdOf = (req: Request) => (typeof req.id === 'string' ? req.id : null);

/**
 * A named operator signs in to the console by a single-use link mailed to her address (the same
 * answer for any address typed), continues on the link's page (a mail scanner following it spends
 * nothing), and signs out. The console's own cookies: a client's dashboard session opens nothing here.
 */
@ApiExcludeController()
@Controller('operator')
export class OperatorSignInPageController {
  private readonly logger = new Logger(OperatorSignInPageController.name);

  constructor(
    private readonly views: OperatorViews,
    private readonly sessions: OperatorSessionsService,
    private readonly limits: SignInLimits,
  ) {}

  @Get('sign-in')
  @PublicForm()
  signIn(@Req() req: Request, @Res() res: Response, @Query('signed-out') signedOut?: string): void {
    const o = this.views.messages(req, res).operatorPages;
    this.views.render(
      req,
      res,
      'sign-in',
      { title: o.signIn.title, nav: 'sign-in' },
      {
        mailEnabled: this.sessions.mailEnabled,
        email: '',
        error: null,
        sent: false,
        notice: signedOut !== undefined ? o.signIn.signedOut : null,
      },
    );
  }

  @Post('sign-in')
  @PublicForm()
  @Accepts('form')
  requestLink(@Req() req: Request, @Res() res: Response, @Body() body: FormBody): void {
    const email = field(body, 'email').trim();
    const o = this.views.messages(req, res).operatorPages;
    const frame = { title: o.signIn.title, nav: 'sign-in' as const };
    const checked = checkEmail(email);
    if (!checked.ok) {
      return this.views.render(
        req,
        res,
        'sign-in',
        frame,
        { mailEnabled: true, email, error: o.signIn.emailInvalid, sent: false, notice: null },
        422,
      );
    }
    // The answer does not wait for the lookup or the mail: the same content and timing for every address.
    const language = this.views.language(req, res);
    void (async () => {
      try {
        if (await this.limits.allowEmail(checked.address)) await this.sessions.mailLink(checked.address, language, requestIdOf(req));
      } catch (error) {
        this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'operator sign-in e-mail not queued');
      }
    })();
    this.views.render(req, res, 'sign-in', frame, { mailEnabled: this.sessions.mailEnabled, email, error: null, sent: true, notice: null });
  }

  @Get('sign-in/link')
  @PublicForm()
  linkPage(@Req() req: Request, @Res() res: Response, @Query('token') token?: string): void {
    const o = this.views.messages(req, res).operatorPages;
    this.views.render(
      req,
      res,
      'link',
      { title: o.signIn.title, nav: 'sign-in' },
      { token: typeof token === 'string' ? token : '', failed: false },
    );
  }

  @Post('sign-in/link')
  @PublicForm()
  @Accepts('form')
  async useLink(@Req() req: Request & { cookies?: Record<string, unknown> }, @Res() res: Response, @Body() body: FormBody): Promise<void> {
    const used = await this.sessions.use(field(body, 'token'), requestIdOf(req));
    if (!used) {
      const o = this.views.messages(req, res).operatorPages;
      return this.views.render(
        req,
        res,
        'link',
        { title: o.signIn.title, nav: 'sign-in' },
        { token: '', failed: true, minutes: MINUTES },
        400,
      );
    }
    // A console session the browser had before is over: the new one has a new id (no fixation).
    const previous = await this.sessions.resolve(req.cookies?.[this.sessions.cookies.session]);
    if (previous) await this.sessions.end(previous, requestIdOf(req));
    res.cookie(this.sessions.cookies.session, used.secret, this.sessions.cookies.options);
    res.clearCookie(this.sessions.cookies.csrf, this.sessions.cookies.options);
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(303, '/operator');
  }

  @Post('sign-out')
  @OperatorPage()
  @Accepts('form')
  async signOut(@Req() req: Request & RequestWithOperator, @Res() res: Response, @CurrentActor() actor: Actor): Promise<void> {
    if (actor.operator.kind === 'operator') {
      await this.sessions.end(
        { sessionId: req[OPERATOR_SESSION]!, operatorId: actor.operator.id, name: actor.operator.name },
        actor.requestId,
      );
    }
    res.clearCookie(this.sessions.cookies.session, this.sessions.cookies.options);
    res.clearCookie(this.sessions.cookies.csrf, this.sessions.cookies.options);
    res.redirect(303, '/operator/sign-in?signed-out');
  }
}
