import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AccountsService, type StatusAction } from '../accounts/accounts.service.js';
import { SessionsService } from '../auth/sessions/sessions.service.js';
import { SignInLinksService } from '../auth/sign-in-links/sign-in-links.service.js';
import { ClientTokensService } from '../auth/tokens/client-tokens.service.js';
import { type Actor, CurrentActor, OPERATOR_SESSION, type RequestWithOperator } from '../caller/actor.js';
import { OperatorPage } from '../caller/audience.js';
import { CSV_DIALECTS } from '../common/csv/csv-dialect.js';
import { Accepts, type FormBody, MultipartBody } from '../common/http/request-body.js';
import { type FieldError, NotFoundProblem, Problem, ValidationProblem } from '../common/problem/problem.js';
import { ApiValidationPipe } from '../common/validation.js';
import { createClientInput, CreateClientDto, UpdateClientDto } from '../accounts/dto/client-input.dto.js';
import { CsrfProtection } from '../auth/sessions/csrf.js';
import { LANGUAGES } from '../i18n/language.js';
import { changesOf, type EditForm, formOfBody, formOfView, patchOf } from './profile-edit.js';
import { localizeErrors } from '../dashboard/dashboard-views.js';
import { AnnualExportService } from '../exports/annual-export.service.js';
import { PeriodExportService } from '../exports/period-export.service.js';
import { RemindersService } from '../declarations/reminders/reminders.service.js';
import { DeclarationsAdminService } from '../declarations/declarations-admin.service.js';
import { ProductsService } from '../products/products.service.js';
import { field } from '../dashboard/form-fields.js';
import { ConsoleService, type ClientsQuery } from './console.service.js';
import { chartOf } from './chart.js';
import { OperatorViews } from './operator-views.js';
import type { AuditEvent } from '../audit/audit-event.js';
import { AuditEventDto } from '../audit/dto/audit.dto.js';
import type { DeclarationSummary } from '../declarations/declaration.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { DeclarationDto, DeclarationSummaryDto } from '../declarations/dto/declaration.dto.js';
import { DerivationDto } from '../products/dto/product.dto.js';

/** The actions of a client's page, each behind a confirmation page that states its consequence. */
export const CLIENT_ACTIONS = ['confirm', 'suspend', 'reactivate', 'offboard', 'end-sessions', 'invite', 'remind'] as const;
type ClientAction = (typeof CLIENT_ACTIONS)[number];
const STATUS_CHANGES: Partial<Record<ClientAction, StatusAction>> = { suspend: 'suspend', reactivate: 'reactivate', offboard: 'offboard' };

const isAction = (value: string): value is ClientAction => (CLIENT_ACTIONS as readonly string[]).includes(value);

/**
 * The operator's console: the first page (who declared a half-year or a year), the clients list,
 * a client's page, its actions (each confirmed first, calling the admin API's own services with the
 * operator's identity, so that the audit trail names her), reminders and exports.
 */
@OperatorPage()
@Controller('operator')
export class ConsolePageController {
  constructor(
    private readonly views: OperatorViews,
    private readonly console: ConsoleService,
    private readonly accounts: AccountsService,
    private readonly sessions: SessionsService,
    private readonly links: SignInLinksService,
    private readonly tokens: ClientTokensService,
    private readonly reminders: RemindersService,
    private readonly annual: AnnualExportService,
    private readonly periods: PeriodExportService,
    private readonly declarations: DeclarationsAdminService,
    private readonly products: ProductsService,
    private readonly csrf: CsrfProtection,
    private readonly catalogue: ReferenceCatalogue,
  ) {}

  @Get()
  async overview(@Req() req: Request, @Res() res: Response, @Query('scope') scopeText?: string): Promise<void> {
    const o = this.views.messages(req, res).operatorPages;
    const scope = this.console.scopeOf(scopeText);
    const report = await this.console.standing.report(scope);
    this.views.render(
      req,
      res,
      'overview',
      { title: o.overview.title, nav: 'overview' },
      { scope, report, chart: chartOf(report.groups), choices: this.console.scopeChoices() },
    );
  }

  @Get('clients')
  async clients(@Req() req: Request, @Res() res: Response, @Query() query: ClientsQuery): Promise<void> {
    const o = this.views.messages(req, res).operatorPages;
    const list = await this.console.clients(query);
    const next = list.nextCursor
      ? `/operator/clients?${new URLSearchParams({ ...nonEmpty(list.filters), cursor: list.nextCursor })}`
      : null;
    this.views.render(
      req,
      res,
      'clients',
      { title: o.clients.title, nav: 'clients' },
      { list, next, choices: { ...this.console.filterChoices(), scopes: this.console.scopeChoices() } },
    );
  }

  /** Inviting a new client: its profile, one stream with its eco-organism and liability, confirmed and invited at once. */
  @Get('clients/new')
  newClient(@Req() req: Request, @Res() res: Response): void {
    this.renderNewClient(req, res, {}, []);
  }

  /** `POST /admin/clients` with `confirm` and `invite`: the same rules (its DTO, its service), the same refusals in words. */
  @Post('clients/new')
  @Accepts('form')
  async createClient(@Req() req: Request, @Res() res: Response, @Body() form: FormBody, @CurrentActor() actor: Actor): Promise<void> {
    const value = (name: string) => field(form, name).trim() || undefined;
    const stream = value('stream');
    const body = {
      company: value('company'),
      email: value('email'),
      country: value('country'),
      plan: value('plan'),
      language: value('language'),
      streams: stream ? [{ stream, eco_organism: value('eco_organism'), liable_from: value('liable_from') }] : undefined,
      confirm: true,
      invite: true,
    };
    let dto: CreateClientDto;
    try {
      dto = (await new ApiValidationPipe().transform(body, { type: 'body', metatype: CreateClientDto, data: '' })) as CreateClientDto;
    } catch (error) {
      if (error instanceof ValidationProblem) return this.renderNewClient(req, res, form, error.errors, 422);
      throw error;
    }
    try {
      const created = await this.accounts.create(createClientInput(dto), actor);
      res.redirect(303, `/operator/clients/${encodeURIComponent(created.view.clientId)}?done=invite`);
    } catch (error) {
      if (error instanceof ValidationProblem) return this.renderNewClient(req, res, form, error.errors, 422);
      throw error;
    }
  }

  /** The bulk import: a clients file checked whole (the dry run, its report by row), or applied all or nothing. */
  @Get('clients/import')
  importPage(@Req() req: Request, @Res() res: Response): void {
    const o = this.views.messages(req, res).operatorPages;
    this.views.render(
      req,
      res,
      'import',
      { title: o.import.title, nav: 'clients' },
      { errors: [], clients: null, applied: false, checked: null },
    );
  }

  /**
   * Imports the file a check page carried (sealed for this console session): the same service and
   * rules as an upload; a file altered since its check, or sealed for another session, is refused
   * and nothing is created.
   */
  @Post('clients/import/checked')
  @Accepts('form')
  async importChecked(@Req() req: Request, @Res() res: Response, @Body() body: FormBody, @CurrentActor() actor: Actor): Promise<void> {
    const o = this.views.messages(req, res).operatorPages;
    const frame = { title: o.import.title, nav: 'clients' as const };
    const language = this.views.language(req, res);
    const value = field(body, 'file');
    const seal = field(body, 'seal');
    if (value === '' || seal === '' || !this.csrf.verifySeal(IMPORT_SEAL, operatorSession(req), value, seal)) {
      const errors: FieldError[] = [
        {
          pointer: '/file',
          code: 'file_missing',
          detail: 'The checked file was altered or belongs to another session: choose it and check it again.',
        },
      ];
      return this.views.render(
        req,
        res,
        'import',
        frame,
        { errors: localizeErrors(language, errors), clients: null, applied: false, checked: null, stale: true },
        422,
      );
    }
    try {
      const clients = await this.accounts.importCsv({ bytes: Buffer.from(value, 'base64url'), charset: undefined }, true, actor);
      this.views.render(req, res, 'import', frame, { errors: [], clients, applied: true, checked: null }, 201);
    } catch (error) {
      if (!(error instanceof ValidationProblem)) throw error;
      this.views.render(
        req,
        res,
        'import',
        frame,
        { errors: localizeErrors(language, error.errors), clients: null, applied: false, checked: null },
        422,
      );
    }
  }

  /** A profile change, as the admin API's `PATCH` takes it: the pending profile as it is now, with its version. */
  @Get('clients/:client_id/edit')
  async editPage(@Req() req: Request, @Res() res: Response, @Param('client_id') clientId: string): Promise<void> {
    const data = await this.console.client(clientId);
    this.renderEdit(req, res, data, formOfView(data.view), [], 'form');
  }

  /**
   * The change checked by the `PATCH`'s DTO, then shown with its consequence (`step=review`), then
   * applied on the version the operator saw (`step=apply`): a client changed since is shown as it is
   * now (412), never overwritten.
   */
  @Post('clients/:client_id/edit')
  @Accepts('form')
  async edit(
    @Req() req: Request,
    @Res() res: Response,
    @Param('client_id') clientId: string,
    @Body() body: FormBody,
    @CurrentActor() actor: Actor,
  ): Promise<void> {
    const data = await this.console.client(clientId);
    const form = formOfBody(body);
    const version = field(body, 'version');
    if (version !== data.version) return this.renderEdit(req, res, data, formOfView(data.view), [], 'form', 412);
    let dto: UpdateClientDto;
    try {
      dto = (await new ApiValidationPipe().transform(patchOf(form), {
        type: 'body',
        metatype: UpdateClientDto,
        data: '',
      })) as UpdateClientDto;
    } catch (error) {
      if (error instanceof ValidationProblem) return this.renderEdit(req, res, data, form, error.errors, 'form', 422);
      throw error;
    }
    if (field(body, 'step') !== 'apply') return this.renderEdit(req, res, data, form, [], 'review');
    try {
      await this.accounts.update(clientId, dto, actor, { ifMatch: version || '""' });
    } catch (error) {
      if (error instanceof ValidationProblem) return this.renderEdit(req, res, data, form, error.errors, 'form', 422);
      if (error instanceof Problem && error.code === 'precondition_failed') {
        const now = await this.console.client(clientId);
        return this.renderEdit(req, res, now, formOfView(now.view), [], 'form', 412);
      }
      throw error;
    }
    res.redirect(303, `/operator/clients/${encodeURIComponent(clientId)}?done=edit`);
  }

  /** `POST /admin/clients/import`'s service: the same reading, rules and refusals. */
  @Post('clients/import')
  @Accepts('multipart')
  async importClients(@Req() req: Request, @Res() res: Response, @Body() body: MultipartBody, @CurrentActor() actor: Actor): Promise<void> {
    const o = this.views.messages(req, res).operatorPages;
    const form = body instanceof MultipartBody ? body : new MultipartBody({}, {});
    const apply = form.fields.action === 'apply';
    const file = form.files.file;
    const frame = { title: o.import.title, nav: 'clients' as const };
    const language = this.views.language(req, res);
    if (!file || file.bytes.length === 0) {
      const errors: FieldError[] = [{ pointer: '/file', code: 'file_missing', detail: 'Choose a CSV file to upload.' }];
      return this.views.render(req, res, 'import', frame, { errors: localizeErrors(language, errors), clients: null, applied: false }, 422);
    }
    try {
      const clients = await this.accounts.importCsv({ bytes: file.bytes, charset: undefined }, apply, actor);
      // A file checked correct comes back sealed in the page: importing it needs no second upload.
      const checked = apply ? null : this.sealedFile(req, file.bytes);
      this.views.render(req, res, 'import', frame, { errors: [], clients, applied: apply, checked }, apply ? 201 : 200);
    } catch (error) {
      if (!(error instanceof ValidationProblem)) throw error;
      this.views.render(req, res, 'import', frame, { errors: localizeErrors(language, error.errors), clients: null, applied: false }, 422);
    }
  }

  @Get('clients/:client_id')
  async client(
    @Req() req: Request,
    @Res() res: Response,
    @Param('client_id') clientId: string,
    @Query('done') done?: string,
  ): Promise<void> {
    const data = clientPage(await this.console.client(clientId));
    this.views.render(
      req,
      res,
      'client',
      { title: data.view.confirmed.company ?? data.view.pending.company ?? clientId, nav: 'clients' },
      {
        ...data,
        done: typeof done === 'string' && (isAction(done) || done === 'edit') ? done : null,
        scope: this.console.standing.defaultScope(),
      },
    );
  }

  /** A declaration as filed: who certified it, its lines, and its per-product detail when filed from a catalogue. */
  @Get('declarations/:id')
  async declaration(@Req() req: Request, @Res() res: Response, @Param('id') id: string): Promise<void> {
    // As the admin API answers it (a retired code still names its category).
    const declaration = DeclarationDto.from(await this.declarations.findOne(id), this.catalogue);
    const o = this.views.messages(req, res).operatorPages;
    this.views.render(req, res, 'declaration', { title: o.declaration.title(declaration.receipt), nav: 'clients' }, { d: declaration });
  }

  /** The per-product detail of a derived declaration (the admin API's JSON, as a download). */
  @Get('declarations/:id/derivation')
  async derivation(@Res() res: Response, @Param('id') id: string): Promise<void> {
    const derivation = await this.products.derivation(id);
    res.status(200).setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="derivation-${derivation.declarationId}.json"`);
    await pipeline(Readable.from(DerivationDto.json(derivation, this.catalogue)), res);
  }

  @Get('clients/:client_id/actions/:action')
  async confirmAction(@Req() req: Request, @Res() res: Response, @Param('client_id') clientId: string, @Param('action') action: string) {
    if (!isAction(action)) throw new NotFoundProblem('Action');
    await this.renderConfirmation(req, res, clientId, action, false);
  }

  @Post('clients/:client_id/actions/:action')
  @Accepts('form')
  async doAction(
    @Req() req: Request,
    @Res() res: Response,
    @Param('client_id') clientId: string,
    @Param('action') action: string,
    @Body() body: FormBody,
    @CurrentActor() actor: Actor,
  ): Promise<void> {
    if (!isAction(action)) throw new NotFoundProblem('Action');
    const status = STATUS_CHANGES[action];
    try {
      if (status) {
        const reason = field(body, 'reason').trim();
        // The version the operator confirmed: a change since then is 412, shown, never overwritten.
        await this.accounts.changeStatus(clientId, status, actor, reason === '' ? undefined : reason.slice(0, 500), {
          ifMatch: field(body, 'version') || '""',
        });
      } else if (action === 'confirm') {
        // The pending profile the operator saw, compared under the row lock: a change since then is shown, never confirmed unseen.
        await this.accounts.confirm(clientId, actor, { ifMatch: field(body, 'version') || '""' });
      } else if (action === 'end-sessions') {
        await this.accounts.get(clientId);
        await this.sessions.endAllNow(clientId, actor, 'operator');
      } else if (action === 'invite') {
        await this.links.issue(clientId, actor, { send: true });
      } else {
        const scope = this.console.standing.defaultScope();
        await this.accounts.get(clientId);
        const period = field(body, 'period') || scope.code;
        const sent = await this.reminders.remind(period, { apply: true, force: true, clientId }, actor);
        if (!sent.some((r) => r.outcome === 'queued')) {
          throw new Problem(
            'conflict',
            `Client "${clientId}" owes nothing for ${period} that a reminder is sent for (active, confirmed, with an address, a stream missing).`,
          );
        }
      }
    } catch (error) {
      if (error instanceof Problem && error.code === 'precondition_failed')
        return this.renderConfirmation(req, res, clientId, action, true);
      throw error;
    }
    res.redirect(303, `/operator/clients/${encodeURIComponent(clientId)}?done=${action}`);
  }

  @Get('clients/:client_id/tokens/:token_id/revoke')
  async confirmRevoke(@Req() req: Request, @Res() res: Response, @Param('client_id') clientId: string, @Param('token_id') tokenId: string) {
    const token = (await this.tokens.list(clientId)).find((t) => t.id === tokenId && t.revokedAt === null);
    if (!token) throw new NotFoundProblem(`Token "${tokenId}" of client "${clientId}"`);
    const o = this.views.messages(req, res).operatorPages;
    this.views.render(req, res, 'token-revoke', { title: o.actions.revokeToken.title, nav: 'clients' }, { clientId, token });
  }

  @Post('clients/:client_id/tokens/:token_id/revoke')
  @Accepts('form')
  async revoke(
    @Res() res: Response,
    @Param('client_id') clientId: string,
    @Param('token_id') tokenId: string,
    @CurrentActor() actor: Actor,
  ): Promise<void> {
    await this.tokens.revoke(clientId, tokenId, actor);
    res.redirect(303, `/operator/clients/${encodeURIComponent(clientId)}?done=revoke`);
  }

  @Get('tools')
  async tools(@Req() req: Request, @Res() res: Response, @Query('period') periodText: string | undefined, @CurrentActor() actor: Actor) {
    const o = this.views.messages(req, res).operatorPages;
    const period = typeof periodText === 'string' && periodText !== '' ? periodText : this.console.standing.defaultScope().code;
    const scope = this.console.scopeOf(period);
    if (scope.kind !== 'period') throw new Problem('bad_request', `"${period}" is not a half-year (2026-S1).`);
    // The dry run: who would be reminded, by the rules of the admin API's reminders.
    const dryRun = await this.reminders.remind(period, { apply: false, force: false }, actor);
    this.views.render(
      req,
      res,
      'tools',
      { title: o.tools.title, nav: 'tools' },
      { period, dryRun, sent: null, choices: this.console.scopeChoices(), ecoOrganisms: this.console.filterChoices().ecoOrganisms },
    );
  }

  @Post('tools/reminders')
  @Accepts('form')
  async sendReminders(@Req() req: Request, @Res() res: Response, @Body() body: FormBody, @CurrentActor() actor: Actor): Promise<void> {
    const o = this.views.messages(req, res).operatorPages;
    const period = field(body, 'period');
    if (this.console.scopeOf(period).kind !== 'period') throw new Problem('bad_request', `"${period}" is not a half-year (2026-S1).`);
    const sent = await this.reminders.remind(period, { apply: true, force: false }, actor);
    this.views.render(
      req,
      res,
      'tools',
      { title: o.tools.title, nav: 'tools' },
      { period, dryRun: sent, sent: true, choices: this.console.scopeChoices(), ecoOrganisms: this.console.filterChoices().ecoOrganisms },
    );
  }

  /** The annual filing of a year for one eco-organism, as a CSV file in the page's dialect. */
  @Get('exports/annual/:year')
  async annualExport(@Req() req: Request, @Res() res: Response, @Param('year') year: string, @Query('eco_organism') eco?: string) {
    if (typeof eco !== 'string' || !this.console.filterChoices().ecoOrganisms.includes(eco)) {
      throw new Problem('bad_request', 'Choose an eco-organism for the annual filing.');
    }
    await this.annual.write(year, eco, 'csv', this.views.language(req, res), res);
  }

  /** A half-year's declarations of every client, or of one eco-organism's streams, as a CSV file in the page's dialect. */
  @Get('exports/period/:period')
  async periodExport(@Req() req: Request, @Res() res: Response, @Param('period') period: string, @Query('eco_organism') eco?: unknown) {
    if (eco !== undefined && (typeof eco !== 'string' || !this.console.filterChoices().ecoOrganisms.includes(eco))) {
      throw new Problem('bad_request', 'Choose an eco-organism the list offers for the half-year export.');
    }
    await this.periods.writeExport(period, 'csv', res, CSV_DIALECTS[this.views.language(req, res)], undefined, eco);
  }

  private renderNewClient(req: Request, res: Response, form: FormBody, errors: FieldError[], status = 200): void {
    const o = this.views.messages(req, res).operatorPages;
    this.views.render(
      req,
      res,
      'client-new',
      { title: o.newClient.title, nav: 'clients' },
      {
        form: Object.fromEntries(
          ['company', 'email', 'country', 'plan', 'language', 'stream', 'eco_organism', 'liable_from'].map((k) => [k, field(form, k)]),
        ),
        errors: localizeErrors(this.views.language(req, res), errors),
        choices: {
          ...this.console.filterChoices(),
          periods: this.console.scopeChoices().filter((c) => c.includes('-S')),
          languages: LANGUAGES,
        },
      },
      status,
    );
  }

  private renderEdit(
    req: Request,
    res: Response,
    data: Awaited<ReturnType<ConsoleService['client']>>,
    form: EditForm,
    errors: FieldError[],
    step: 'form' | 'review',
    status = 200,
  ): void {
    const o = this.views.messages(req, res).operatorPages;
    this.views.render(
      req,
      res,
      'edit',
      { title: step === 'review' ? o.profileEdit.reviewTitle : o.profileEdit.title, nav: 'clients' },
      {
        ...data,
        form,
        step,
        changed: status === 412,
        changes: step === 'review' ? changesOf(data.view, patchOf(form)) : [],
        errors: localizeErrors(this.views.language(req, res), errors),
        choices: { ...this.console.filterChoices(), languages: LANGUAGES },
      },
      status,
    );
  }

  /** The checked file and its seal for this console session; null for one whose base64 would not fit a form's body (chosen again). */
  private sealedFile(req: Request, bytes: Buffer): { file: string; seal: string } | null {
    if (bytes.length > SEALED_FILE_MAX_BYTES) return null;
    const file = bytes.toString('base64url');
    return { file, seal: this.csrf.seal(IMPORT_SEAL, operatorSession(req), file) };
  }

  private async renderConfirmation(req: Request, res: Response, clientId: string, action: ClientAction, changed: boolean): Promise<void> {
    const o = this.views.messages(req, res).operatorPages;
    const data = clientPage(await this.console.client(clientId));
    this.views.render(
      req,
      res,
      'confirm',
      { title: o.actions[actionKey(action)].title, nav: 'clients' },
      { ...data, action, words: o.actions[actionKey(action)], changed, scope: this.console.standing.defaultScope() },
      changed ? 412 : 200,
    );
  }
}

/** The purpose of the seal on a checked clients file (see importChecked). */
const IMPORT_SEAL = 'operator-clients-import';
/** The largest checked file carried in its page: its base64 stays within the form body limit of 1 MiB. */
const SEALED_FILE_MAX_BYTES = 700 * 1024;

const operatorSession = (req: Request) => (req as Request & RequestWithOperator)[OPERATOR_SESSION] ?? '';

const actionKey = (action: ClientAction) => (action === 'end-sessions' ? 'endSessions' : action);

const nonEmpty = (filters: Record<string, string>) => Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== ''));

/** A client's page reads declarations and audit entries as the admin API writes them. */
function clientPage<T extends { declarations: DeclarationSummary[]; audit: AuditEvent[] }>(data: T) {
  return {
    ...data,
    declarations: data.declarations.map((d) => DeclarationSummaryDto.from(d)),
    audit: data.audit.map((e) => AuditEventDto.from(e)),
  };
}
