import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { DashboardPage } from '../caller/audience.js';
import type { Account } from '../accounts/account.js';
import { CurrentAccount } from '../accounts/current-account.js';
import { type AuthenticatedClient, CurrentClient } from '../caller/current-client.js';
import { Accepts, CsvBody, type FormBody, MultipartBody } from '../common/http/request-body.js';
import { type FieldError, ValidationProblem } from '../common/problem/problem.js';
import { WorkQueue } from '../common/work-queue.js';
import { CSV_DIALECTS } from '../common/csv/csv-dialect.js';
import { writeDeclarationCsv } from '../common/csv/declaration-file.js';
import { CSV_MEDIA_TYPE } from '../common/csv/write-csv.js';
import { MAX_REPORTED_ERRORS } from '../declarations/declaration-validator.js';
import { renderDeclarationTemplate } from '../reference/render-reference.js';
import { uploadReport } from './upload-report.js';
import { DeclarationsService, type SubmitOptions, type SubmitResult } from '../declarations/declarations.service.js';
import {
  CHECK_PAGE_WARNINGS,
  DeclarationCheckPresenter,
  keptProducts,
  readDeclarantName,
  submittedDeclaration,
} from './declaration-check.presenter.js';
import { filedMail, whoFilesNext } from './filing-confirmation.presenter.js';
import { ProductsService } from '../products/products.service.js';
import { CsrfProtection } from '../auth/sessions/csrf.js';
import { MailOutbox } from '../mail/mail-outbox.js';
import { DeclarationDto, DeclarationPageDto } from '../declarations/dto/declaration.dto.js';
import { AccountsService } from '../accounts/accounts.service.js';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/config.js';
import { ListDeclarationsQueryDto } from '../declarations/dto/list-declarations-query.dto.js';
import { Clock, parisDate } from '../calendar/clock.js';
import { periodOf } from '../calendar/half-year.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { DashboardViews, localizeErrors } from './dashboard-views.js';
import { MESSAGES } from '../i18n/messages/index.js';
import { field } from './form-fields.js';
import {
  countStreams,
  FORM_ROWS,
  formPage,
  formUnits,
  MAX_FORM_ROWS,
  readDeclarationForm,
  tooManyRows,
} from './declaration-form.presenter.js';
import { submissionOrigin } from '../declarations/submission-origin.js';

/** Lines a form shown again after an upload starts with (as rows: see declaration-form.presenter.ts). */
const FORM_LINES = FORM_ROWS;

/**
 * Declaration files read, checked and rendered at once in this process; the others wait their turn.
 * A 1,000-line file holds about a megabyte while it is checked (its lines, read and checked, then its
 * page), and it is checked on the one thread: 20 at once interleaved at their database reads held 20
 * of them and grew the heap, not the throughput. One at a time: two at once overlapped only the check's
 * database read (a few per cent of it) and left the process 12–17 MB larger for good after 32
 * connections uploading (`npm run bench`, the yardstick's upload case: +40–43 MB, one at a time +26 MB).
 */
const FILE_CHECKS = new WorkQueue(1);

interface FormLine {
  stream: string;
  material: string;
  unit: string;
  quantity: string;
}

/**
 * The client's declarations in a browser: the list, one declaration with its revisions, a
 * download as CSV, and a new declaration by form or by spreadsheet. Submissions go through
 * DeclarationsService exactly as the API's (same rules, revisions, answers); its problems are shown
 * next to the line and field, or the spreadsheet row and cell, they point at.
 */
@ApiExcludeController()
@DashboardPage()
@Controller('dashboard/declarations')
export class DeclarationsPageController {
  constructor(
    private readonly views: DashboardViews,
    private readonly declarations: DeclarationsService,
    private readonly catalogue: ReferenceCatalogue,
    private readonly clock: Clock,
    private readonly csrf: CsrfProtection,
    private readonly outbox: MailOutbox,
    private readonly accounts: AccountsService,
    private readonly check: DeclarationCheckPresenter,
    private readonly products: ProductsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.site = { baseUrl: config.publicBaseUrl, contact: config.contactEmail ?? null };
  }

  /** Where the confirmation e-mail links to, and the address it gives for questions. */
  private readonly site: { baseUrl: string; contact: string | null };

  @Get()
  async list(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentClient() client: AuthenticatedClient,
    @Query() query: ListDeclarationsQueryDto,
  ): Promise<void> {
    const page = DeclarationPageDto.from(await this.declarations.list(client.clientId, query));
    const filters = { period: query.period ?? '', status: query.status ?? '' };
    const next = page.next_cursor ? `?${new URLSearchParams({ ...clean(filters), cursor: page.next_cursor }).toString()}` : null;
    const m = this.views.messages(req, res);
    this.views.render(
      req,
      res,
      'declarations',
      { title: m.dashboardPages.declarations.title, nav: 'declarations', liveData: true },
      { page, filters, next, paged: query.cursor !== undefined },
    );
  }

  @Get('new')
  newForm(@Req() req: Request, @Res() res: Response, @CurrentAccount() account: Account): void {
    this.form(req, res, account, {});
  }

  @Post()
  @Accepts('form')
  async submitForm(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentAccount() account: Account,
    @CurrentClient() client: AuthenticatedClient,
    @Body() body: FormBody,
  ): Promise<void> {
    const language = this.views.language(req, res);
    const form = readDeclarationForm(body, {
      language,
      units: formUnits(this.catalogue, account),
      countStreams: countStreams(this.catalogue, account),
    });
    const { period, rows, soldValues } = form;
    // The form holds MAX_FORM_ROWS rows at most ("Add a line" included): past it, the rows are refused, never cut short.
    if (form.sent > MAX_FORM_ROWS || (form.action === 'add' && form.sent >= MAX_FORM_ROWS))
      return this.form(
        req,
        res,
        account,
        { period, rows, errors: [tooManyRows(language)], soldValues },
        form.sent > MAX_FORM_ROWS ? 422 : 200,
      );
    if (form.action === 'add') return this.form(req, res, account, { period, rows, soldValues, added: true });
    try {
      // Nothing is filed yet: the check page shows what would be, and the person declares it there.
      return this.check.render(req, res, client, await this.declarations.check(account, form.submitted), {
        // Warnings point at the form's rows as the person numbered them.
        lineOf: form.rowOf,
      });
    } catch (error) {
      if (!(error instanceof ValidationProblem)) throw error;
      this.form(req, res, account, { period, rows, errors: form.errors(error.errors), soldValues }, 422);
    }
  }

  @Post('upload')
  @Accepts('multipart')
  async upload(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentAccount() account: Account,
    @CurrentClient() client: AuthenticatedClient,
    @Body() body: MultipartBody,
  ): Promise<void> {
    // No body at all (an empty form) reaches here as undefined.
    const form = body instanceof MultipartBody ? body : new MultipartBody({}, {});
    const period = form.fields.period?.trim() ?? '';
    const file = form.files.file;
    const language = this.views.language(req, res);
    if (!file || file.bytes.length === 0) {
      const errors: FieldError[] = [{ pointer: '/file', code: 'file_missing', detail: 'Choose a CSV file to upload.' }];
      return this.form(
        req,
        res,
        account,
        { period, lines: blankLines(FORM_LINES), uploadErrors: localizeErrors(language, errors), uploadPeriod: period },
        422,
      );
    }
    try {
      return await FILE_CHECKS.run(async () =>
        this.check.render(
          req,
          res,
          client,
          await this.declarations.checkCsv(account, new CsvBody(file.bytes, undefined), period, { warningsPerCode: CHECK_PAGE_WARNINGS }),
          { lineOf: null },
        ),
      );
    } catch (error) {
      if (!(error instanceof ValidationProblem)) throw error;
      // The file back with its problems, for the person to open beside it (31.7).
      const report = uploadReport(language, { bytes: file.bytes, name: file.filename }, error.errors, error.total, MAX_REPORTED_ERRORS);
      this.form(
        req,
        res,
        account,
        {
          lines: blankLines(FORM_LINES),
          uploadErrors: localizeErrors(language, error.errors),
          uploadPeriod: period,
          fileName: file.filename,
          report,
        },
        422,
      );
    }
  }

  /** The blank declaration file in the page's dialect: French = `;`, decimal comma, French headers; English = `,` and `.` (UTF-8 with BOM both). */
  @Get('template.csv')
  template(@Req() req: Request, @Res() res: Response, @CurrentAccount() account: Account): void {
    const language = this.views.language(req, res);
    const own = account.profile.streams.map((code) => this.catalogue.stream(code)).filter((stream) => stream !== undefined);
    const streams = own.length > 0 ? own : this.catalogue.streamCodes().map((code) => this.catalogue.stream(code)!);
    res.setHeader('Content-Type', CSV_MEDIA_TYPE);
    res.setHeader('Content-Disposition', `attachment; filename="${MESSAGES[language].dashboardPages.form.templateFile}"`);
    res.setHeader('Cache-Control', 'no-store');
    res.send(renderDeclarationTemplate(streams, language));
  }

  /**
   * The check page's two buttons: "Change" takes the lines back to the form; "Declare and file" files
   * them as a revision declared by the named person, then shows the confirmation and sends its e-mail.
   */
  @Post('file')
  @Accepts('form')
  async file(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentAccount() account: Account,
    @CurrentClient() client: AuthenticatedClient,
    @Body() body: FormBody,
  ): Promise<void> {
    const language = this.views.language(req, res);
    const words = MESSAGES[language].dashboardPages.check;
    const pending = this.check.open(field(body, 'pending'), field(body, 'seal'), client);
    if (!pending) {
      // Tampered with, or sealed for another session: nothing is filed; the person starts again.
      const errors = [{ where: undefined, message: words.expired, line: null, field: null }];
      return this.form(req, res, account, { lines: blankLines(FORM_LINES), errors }, 400);
    }
    const lines = pending.lines.map(([stream, material, unit, quantity]) => ({ stream, material, unit, quantity }));
    const unitsSold = pending.unitsSold ?? [];
    const source = pending.source ?? 'form';
    // "Change" goes back to where the lines came from: the form, the file upload, or the products page.
    if (field(body, 'action') === 'edit' && source === 'file') return res.redirect(303, '/dashboard/declarations/new#by-product-file');
    if (field(body, 'action') === 'edit' && source === 'derived')
      return res.redirect(303, `/dashboard/products/derived?period=${encodeURIComponent(pending.period)}`);
    if (field(body, 'action') === 'edit')
      return this.form(req, res, account, {
        period: pending.period,
        lines: [...lines, ...blankLines(1)],
        soldValues: Object.fromEntries(unitsSold),
      });

    const declaration = submittedDeclaration(pending);
    const { name, error: nameError } = readDeclarantName(field(body, 'name'), language);
    // A per-product file's products, kept as the catalogue in the filing's transaction when she asked.
    const keep = source === 'file' && field(body, 'keep') === '1' && (pending.products?.length ?? 0) > 0;
    const again = { lineOf: null, source, products: pending.products, keep };
    if (nameError)
      return this.check.render(req, res, client, await this.declarations.check(account, declaration), {
        ...again,
        name,
        nameError,
        status: 422,
      });

    // The confirmation e-mail, to the account's confirmed address in the client's language, is queued with the filing.
    const mailTo = this.outbox.enabled ? account.profile.email : null;
    const mailLanguage = mailTo ? (await this.accounts.get(account.clientId)).language : null;
    let result: SubmitResult;
    const origin = { ...submissionOrigin(req), declaredByName: name };
    const writer = {
      clientId: client.clientId,
      mode: client.mode,
      tokenId: null,
      sessionId: client.sessionId ?? null,
      requestId: typeof req.id === 'string' ? req.id : null,
    };
    const options: SubmitOptions = {
      // What the check page said it replaces is what it replaces: a revision filed meanwhile rolls this one back.
      onStored: async (manager, stored) => {
        if (stored.revision !== pending.replaces + 1) throw new StaleCheck(stored.revision - 1);
        if (keep) await this.products.keepAsCatalogue(manager, writer, pending.period, keptProducts(pending.products!));
        if (mailTo && mailLanguage)
          await this.outbox.enqueue(manager, filedMail(this.catalogue, this.site, account, mailTo, mailLanguage, stored));
      },
    };
    try {
      result =
        source === 'derived'
          ? // Derived again from the catalogue and sales in the filing's transaction: filed only if they still give the checked lines.
            await this.products.file(account, writer, pending.period, origin, {
              ...options,
              expected: pending.lines.map(([stream, material, unit, quantity]) => [stream, material, unit, quantity]),
            })
          : await this.declarations.submit(account, declaration, origin, options);
    } catch (error) {
      if (error instanceof ValidationProblem) {
        // The rules changed under the checked lines (the account's streams, the catalogue): back to the form, with why.
        const errors = localizeErrors(language, error.errors).map((e) => ({ ...e, line: null, field: null }));
        return this.form(req, res, account, { period: pending.period, lines, errors, soldValues: Object.fromEntries(unitsSold) }, 422);
      }
      if (!(error instanceof StaleCheck)) throw error;
      const checked = await this.declarations.check(account, declaration);
      return this.check.render(req, res, client, checked, { ...again, name, notice: words.stale(error.current), status: 409 });
    }
    if (result.status === 201 && mailTo) this.outbox.kick();
    this.submitted(res, result, 'filed');
  }

  /**
   * The check page's « Download the detail »: every pending line, as the sealed page carries them, as a
   * file in the page's dialect (which uploads again as it is). Nothing is filed; a page whose seal does not verify goes back to the form.
   */
  @Post('detail.csv')
  @Accepts('form')
  pendingCsv(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentAccount() account: Account,
    @CurrentClient() client: AuthenticatedClient,
    @Body() body: FormBody,
  ): void {
    const language = this.views.language(req, res);
    const pending = this.check.open(field(body, 'pending'), field(body, 'seal'), client);
    if (!pending) {
      const errors = [{ where: undefined, message: MESSAGES[language].dashboardPages.check.expired, line: null, field: null }];
      return this.form(req, res, account, { lines: blankLines(FORM_LINES), errors }, 400);
    }
    res.setHeader('Content-Type', CSV_MEDIA_TYPE);
    res.setHeader('Content-Disposition', `attachment; filename="${MESSAGES[language].dashboardPages.check.downloadFile}"`);
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).send(
      writeDeclarationCsv(
        pending.lines.map(([stream, material, unit, quantity]) => ({ stream, material, unit, quantity })),
        CSV_DIALECTS[language],
        (pending.unitsSold ?? []).map(([stream, quantity]) => ({ stream, quantity })),
      ),
    );
  }

  @Get(':id')
  async detail(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentClient() client: AuthenticatedClient,
    @CurrentAccount() account: Account,
    @Param('id') id: string,
    @Query('result') result?: string,
  ): Promise<void> {
    const declaration = DeclarationDto.from(await this.declarations.findOne(client.clientId, id), this.catalogue);
    const revisions = await this.declarations.revisionsOf(client.clientId, declaration.period);
    const m = this.views.messages(req, res).dashboardPages.declaration;
    const notice =
      result === 'created' ? m.created(declaration.revision, declaration.receipt) : result === 'unchanged' ? m.unchanged : null;
    const by = declaration.submitted_by?.type === 'dashboard' ? (declaration.submitted_by.declared_by_name ?? null) : null;
    // The confirmation: right after filing, the receipt, who declared and when, and what happens next.
    const language = this.views.language(req, res);
    const filed =
      result === 'filed' && by !== null
        ? { mailTo: this.outbox.enabled ? account.profile.email : null, next: whoFilesNext(this.catalogue, language) }
        : null;
    const title = filed ? this.views.messages(req, res).dashboardPages.filed.title : m.title(declaration.period, declaration.revision);
    this.views.render(
      req,
      res,
      'declaration',
      { title, nav: 'declarations', liveData: true },
      {
        declaration,
        revisions: revisions.map((r) => ({
          id: r.id,
          revision: r.revision,
          status: r.status,
          submitted_at: r.submittedAt,
          receipt: r.receipt,
        })),
        notice,
        filed,
        declaredBy: by,
        countsOnly: this.check.countsOnly(declaration.lines, declaration.units_sold),
      },
    );
  }

  /** The declaration as a file in the page's dialect, which uploads again unchanged (materials written as codes come back as their published names). */
  @Get(':id/csv')
  async csv(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentClient() client: AuthenticatedClient,
    @Param('id') id: string,
  ): Promise<void> {
    const declaration = DeclarationDto.from(await this.declarations.findOne(client.clientId, id), this.catalogue);
    const language = this.views.language(req, res);
    const dialect = CSV_DIALECTS[language];
    res.setHeader('Content-Type', CSV_MEDIA_TYPE);
    res.setHeader('Content-Disposition', `attachment; filename="declaration-${declaration.period}-r${declaration.revision}.csv"`);
    res.setHeader('Cache-Control', 'no-store');
    res.send(
      writeDeclarationCsv(
        // A material written as its code (a derived declaration's) is given by its published name, which uploads as the same category.
        declaration.lines.map((line) => ({
          ...line,
          material:
            line.material_category?.name && line.material === line.material_category.code
              ? line.material_category.name[language]
              : line.material,
          quantity: String(line.quantity),
        })),
        dialect,
        declaration.units_sold.map((entry) => ({ stream: entry.stream, quantity: String(entry.quantity) })),
      ),
    );
  }

  private submitted(res: Response, result: SubmitResult, created: 'created' | 'filed' = 'created'): void {
    const id = result.replayed ? result.answer.id : result.declaration.id;
    res.redirect(303, `/dashboard/declarations/${id}?result=${result.status === 201 ? created : 'unchanged'}`);
  }

  /** The « Nouvelle déclaration » page (its data: `formPage` in declaration-form.presenter.ts). */
  private form(req: Request, res: Response, account: Account, data: Record<string, unknown>, status = 200): void {
    const language = this.views.language(req, res);
    this.views.render(
      req,
      res,
      'declaration-new',
      { title: MESSAGES[language].dashboardPages.form.title, nav: 'declarations', liveData: true },
      formPage(this.catalogue, account, language, periodOf(parisDate(this.clock.now())), data),
      status,
    );
  }
}

/** A revision was filed for the period between the check and the filing. */
class StaleCheck extends Error {
  constructor(readonly current: number) {
    super('stale check');
  }
}

function blankLines(n: number): FormLine[] {
  return Array.from({ length: n }, () => ({ stream: '', material: '', unit: '', quantity: '' }));
}

function clean(filters: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== ''));
}
