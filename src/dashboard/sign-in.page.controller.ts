import { Body, Controller, Get, Logger, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AccountsService } from '../accounts/accounts.service.js';
import { checkEmail, foldEmail } from '../common/email-address.js';
import { DashboardPage, PublicForm } from '../caller/audience.js';
import { type AuthenticatedClient, CurrentClient } from '../caller/current-client.js';
import { SessionsService } from '../auth/sessions/sessions.service.js';
import { SIGN_IN_LINK_TTL_MS, SignInLinksService } from '../auth/sign-in-links/sign-in-links.service.js';
import { Accepts, type FormBody } from '../common/http/request-body.js';
import { MailOutbox } from '../mail/mail-outbox.js';
import { SignInLimits } from '../rate-limit/sign-in-limits.js';
import { MESSAGES } from '../i18n/messages/index.js';
import { inLanguage } from '../i18n/language.js';
import { DashboardViews } from './dashboard-views.js';
import { field } from './form-fields.js';

const LINK_MINUTES = SIGN_IN_LINK_TTL_MS / 60_000;

const requestIdOf = (req: Request) => (typeof req.id === 'string' ? req.id : null);

/**
 * Signing in and out. Sign-in links (from the operator, or e-mailed on request) lead to a page that
 * asks to continue: following a link (a mail scanner does) spends nothing; the form's POST spends
 * it and starts a new session. The e-mail form answers the same whether or not the address is a
 * client's (no account enumeration) and sends its mail after answering.
 */
@ApiExcludeController()
@Controller('dashboard')
export class SignInPageController {
  private readonly logger = new Logger(SignInPageController.name);

  constructor(
    private readonly views: DashboardViews,
    private readonly links: SignInLinksService,
    private readonly sessions: SessionsService,
    private readonly accounts: AccountsService,
    private readonly outbox: MailOutbox,
    private readonly limits: SignInLimits,
  ) {}

  @Get('sign-in')
  @PublicForm()
  signIn(@Req() req: Request, @Res() res: Response, @Query('session') session?: string, @Query('signed-out') signedOut?: string): void {
    const m = this.views.messages(req, res);
    const notice =
      signedOut === 'everywhere'
        ? m.dashboardPages.signIn.signedOutEverywhere
        : signedOut !== undefined
          ? m.dashboard.signIn.signedOut
          : session !== undefined
            ? m.dashboard.signIn.sessionEnded
            : null;
    this.views.render(
      req,
      res,
      'sign-in',
      { title: m.dashboard.signIn.title, nav: 'sign-in' },
      { mailEnabled: this.outbox.enabled, notice, email: '', error: null, sent: false, minutes: LINK_MINUTES },
    );
  }

  @Post('sign-in')
  @PublicForm()
  @Accepts('form')
  async requestLink(@Req() req: Request, @Res() res: Response, @Body() body: FormBody): Promise<void> {
    // Counted against the address's sign-in limit before its body was read (SignInLimitGuard).
    const email = field(body, 'email').trim();
    const m = this.views.messages(req, res);
    const frame = { title: m.dashboard.signIn.title, nav: 'sign-in' as const };
    if (!this.outbox.enabled) {
      return this.views.render(
        req,
        res,
        'sign-in',
        frame,
        { mailEnabled: false, notice: null, email, error: null, sent: false, minutes: LINK_MINUTES },
        409,
      );
    }
    // The service's one rule for addresses, as the operator's API and the clients import apply it.
    const checked = checkEmail(email);
    if (!checked.ok) {
      // A letter of another script that looks like a Latin one (`İ`, Cyrillic `а`…) would name another mailbox: refused, not folded.
      const error = checked.code === 'email_characters' ? m.dashboardPages.signIn.emailNonAscii : m.dashboard.signIn.emailInvalid;
      return this.views.render(
        req,
        res,
        'sign-in',
        frame,
        { mailEnabled: true, notice: null, email, error, sent: false, minutes: LINK_MINUTES },
        422,
      );
    }
    // The answer does not wait for the lookup or the mail: its content and timing are the same for every address.
    void this.mailLinks(checked.address, requestIdOf(req));
    this.views.render(req, res, 'sign-in', frame, {
      mailEnabled: true,
      notice: null,
      email,
      error: null,
      sent: true,
      minutes: LINK_MINUTES,
    });
  }

  @Get('sign-in/link')
  @PublicForm()
  linkPage(@Req() req: Request, @Res() res: Response, @Query('token') token?: string): void {
    const m = this.views.messages(req, res);
    this.views.render(
      req,
      res,
      'link',
      { title: m.dashboard.signIn.title, nav: 'sign-in' },
      { token: typeof token === 'string' ? token : '', failed: false, minutes: LINK_MINUTES },
    );
  }

  @Post('sign-in/link')
  @PublicForm()
  @Accepts('form')
  async useLink(@Req() req: Request & { cookies?: Record<string, unknown> }, @Res() res: Response, @Body() body: FormBody): Promise<void> {
    // Counted against the address's sign-in limit before its body was read (SignInLimitGuard).
    const used = await this.links.use(field(body, 'token'), requestIdOf(req));
    if (!used.ok) {
      const m = this.views.messages(req, res);
      return this.views.render(
        req,
        res,
        'link',
        { title: m.dashboard.signIn.title, nav: 'sign-in' },
        { token: '', failed: true, minutes: LINK_MINUTES },
        400,
      );
    }
    // A session the browser had before is over: the new one has a new id (no fixation).
    const previous = await this.sessions.resolve(req.cookies?.[this.sessions.cookies.session]);
    if (previous) await this.sessions.endById(previous, requestIdOf(req));
    res.cookie(this.sessions.cookies.session, used.secret, this.sessions.cookies.options);
    res.clearCookie(this.sessions.cookies.csrf, this.sessions.cookies.options);
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(303, '/dashboard');
  }

  @Post('sign-out')
  @DashboardPage()
  @Accepts('form')
  async signOut(@Req() req: Request, @Res() res: Response, @CurrentClient() client: AuthenticatedClient): Promise<void> {
    await this.sessions.endById({ sessionId: client.sessionId!, clientId: client.clientId }, requestIdOf(req));
    res.clearCookie(this.sessions.cookies.session, this.sessions.cookies.options);
    res.clearCookie(this.sessions.cookies.csrf, this.sessions.cookies.options);
    res.redirect(303, '/dashboard/sign-in?signed-out');
  }

  /** "Sign out everywhere": every session of the client ends (this one included), on every browser and replica. */
  @Post('sign-out/everywhere')
  @DashboardPage()
  @Accepts('form')
  async signOutEverywhere(@Req() req: Request, @Res() res: Response, @CurrentClient() client: AuthenticatedClient): Promise<void> {
    await this.sessions.endAllNow(
      client.clientId,
      { operator: { kind: 'client', clientId: client.clientId, sessionId: client.sessionId ?? null }, requestId: requestIdOf(req) },
      'sign_out_everywhere',
    );
    res.clearCookie(this.sessions.cookies.session, this.sessions.cookies.options);
    res.clearCookie(this.sessions.cookies.csrf, this.sessions.cookies.options);
    res.redirect(303, '/dashboard/sign-in?signed-out=everywhere');
  }

  /**
   * A link to each confirmed client whose confirmed address is this one (A–Z folded, nothing else),
   * mailed to that address as stored, never to the text typed; nothing for any other address. Each
   * mail counts against the stored address's limit, and the client's daily one (SignInLinksService).
   * The mail is queued in the outbox with its link and sent after the commit.
   */
  private async mailLinks(typed: string, requestId: string | null): Promise<void> {
    try {
      for (const { clientId, email, language } of await this.accounts.confirmedWithEmail(foldEmail(typed))) {
        if (!(await this.limits.allowEmail(email))) continue;
        // In the client's language (set by the operator, French by default), whatever the page's; the link opens the dashboard in it too.
        const mail = MESSAGES[language].mail.signIn;
        await this.links.issueByEmail(clientId, requestId, {
          to: email,
          language,
          compose: (link) => ({
            subject: mail.subject,
            text: mail.text({ clientId, minutes: LINK_MINUTES, url: inLanguage(link.url, language) }),
          }),
        });
      }
    } catch (error) {
      this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'sign-in e-mail not queued');
    }
  }
}
