import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { DashboardPage } from '../caller/audience.js';
import type { Account } from '../accounts/account.js';
import { CurrentAccount } from '../accounts/current-account.js';
import { type AuthenticatedClient, CurrentClient } from '../caller/current-client.js';
import { ExactNumber } from '../common/http/json-body.js';
import { Accepts, CsvBody, type FormBody, MultipartBody } from '../common/http/request-body.js';
import { type FieldError, ValidationProblem } from '../common/problem/problem.js';
import { CSV_DIALECTS } from '../common/csv/csv-dialect.js';
import { writeDeclarationCsv } from '../common/csv/declaration-file.js';
import { CSV_MEDIA_TYPE } from '../common/csv/write-csv.js';
import { MAX_REPORTED_ERRORS } from '../declarations/declaration-validator.js';
import { renderDeclarationTemplate } from '../reference/render-reference.js';
import { uploadReport } from './upload-report.js';
import {
  type CheckedDeclaration,
  DeclarationsService,
  type SubmitOptions,
  type SubmitResult,
} from '../declarations/declarations.service.js';
import { type CheckPageOptions, DeclarationCheckPresenter, type PendingProduct } from './declaration-check.presenter.js';
import { type KeptProduct, ProductsService } from '../products/products.service.js';
import { CsrfProtection } from '../auth/sessions/csrf.js';
import { MailOutbox, type OutgoingMail } from '../mail/mail-outbox.js';
import type { DeclarationDto } from '../declarations/dto/declaration.dto.js';
import { inLanguage, type Language } from '../i18n/language.js';
import { AccountsService } from '../accounts/accounts.service.js';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/config.js';
import { formatDateTime, formatQuantity } from '../i18n/format.js';
import { ListDeclarationsQueryDto } from '../declarations/dto/list-declarations-query.dto.js';
import { Clock, parisDate } from '../calendar/clock.js';
import { periodOf } from '../calendar/half-year.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { DashboardViews, localizeErrors } from './dashboard-views.js';
import { MESSAGES } from '../i18n/messages/index.js';
import { numberContext, numberConvention, readNumber } from '../i18n/read-number.js';
import { field, fields } from './form-fields.js';
import { submissionOrigin } from '../declarations/submission-origin.js';

/** Lines a new form starts with, and the most it shows. */
const FORM_LINES = 4;
const MAX_FORM_LINES = 200;
const COLUMNS = ['stream', 'material', 'unit', 'quantity'] as const;

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
    this.baseUrl = config.publicBaseUrl;
    this.contact = config.contactEmail ?? null;
  }

  private readonly baseUrl: string;
  private readonly contact: string | null;

  @Get()
  async list(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentClient() client: AuthenticatedClient,
    @Query() query: ListDeclarationsQueryDto,
  ): Promise<void> {
    const page = await this.declarations.list(client.clientId, query);
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
    this.form(req, res, account, { lines: blankLines(FORM_LINES) });
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
    const period = field(body, 'period').trim();
    const columns = Object.fromEntries(COLUMNS.map((name) => [name, fields(body, name)]));
    const sent = Math.max(...COLUMNS.map((name) => columns[name]!.length));
    const count = Math.min(MAX_FORM_LINES, sent);
    const lines: FormLine[] = Array.from({ length: count }, (_, i) => ({
      stream: columns.stream![i] ?? '',
      material: columns.material![i] ?? '',
      unit: columns.unit![i] ?? '',
      quantity: columns.quantity![i] ?? '',
    }));
    // The form holds MAX_FORM_LINES lines at most ("Add a line" included): past it, the lines are refused, never cut short.
    const language = this.views.language(req, res);
    const full = {
      where: undefined,
      message: MESSAGES[language].dashboardPages.form.tooManyLines(MAX_FORM_LINES),
      line: null,
      field: null,
    };
    if (field(body, 'action') === 'add') {
      if (sent >= MAX_FORM_LINES)
        return this.form(
          req,
          res,
          account,
          { period, lines, errors: [full], soldValues: this.soldValuesOf(account, body) },
          sent > MAX_FORM_LINES ? 422 : 200,
        );
      return this.form(req, res, account, { period, lines: [...lines, ...blankLines(1)], soldValues: this.soldValuesOf(account, body) });
    }
    if (sent > MAX_FORM_LINES)
      return this.form(req, res, account, { period, lines, errors: [full], soldValues: this.soldValuesOf(account, body) }, 422);
    // Blank lines are left out; the problems of the others point back at their place in the form.
    const filled = lines.map((line, index) => ({ line, index })).filter(({ line }) => COLUMNS.some((c) => line[c].trim() !== ''));
    // Quantities as people write them ("1 200,5", "4 800"): read with the evidence of the whole form; what cannot be read for sure is said why.
    const context = { ...numberContext(filled.map(({ line }) => line.quantity)), convention: numberConvention(language) };
    const unread = new Map<number, FieldError>();
    const quantities = filled.map(({ line, index }, at) => {
      const read = readNumber(line.quantity, context);
      if (read.ok) return new ExactNumber(read.value);
      unread.set(at, {
        pointer: `/lines/${at}/quantity`,
        code: read.code,
        detail: read.code,
        params: { ...read.params, line: index + 1, field: 'quantity' },
      });
      return line.quantity;
    });
    // The units sold, one field per stream of the account that counts them; left blank, not stated.
    const unitsSold = this.countStreams(account)
      .map((stream) => ({ stream, text: field(body, `units_sold_${stream}`).trim() }))
      .filter(({ text }) => text !== '');
    const soldContext = { ...numberContext(unitsSold.map(({ text }) => text)), convention: numberConvention(language) };
    const unreadSold = new Map<number, FieldError>();
    const soldQuantities = unitsSold.map(({ stream, text }, at) => {
      const read = readNumber(text, soldContext);
      if (read.ok) return new ExactNumber(read.value);
      unreadSold.set(at, {
        pointer: `/units_sold/${at}/quantity`,
        code: read.code,
        detail: read.code,
        params: { ...read.params, field: 'units_sold', stream },
      });
      return text;
    });
    const submitted = {
      period,
      lines: filled.map(({ line }, at) => ({ stream: line.stream, material: line.material, unit: line.unit, quantity: quantities[at] })),
      ...(unitsSold.length > 0 ? { units_sold: unitsSold.map(({ stream }, at) => ({ stream, quantity: soldQuantities[at] })) } : {}),
    };
    const soldValues = Object.fromEntries(unitsSold.map(({ stream, text }) => [stream, text]));
    try {
      // Nothing is filed yet: the check page shows what would be, and the person declares it there.
      return this.checkPage(req, res, client, await this.declarations.check(account, submitted), {
        // Warnings point at the form's lines as the person numbered them (blank lines left out).
        lineOf: (at) => filled[at]!.index + 1,
      });
    } catch (error) {
      if (!(error instanceof ValidationProblem)) throw error;
      const errors = error.errors
        .map((e) => {
          const sold = /^\/units_sold\/(\d+)/.exec(e.pointer);
          if (sold) {
            const position = Number(sold[1]);
            const found = unreadSold.get(position) ?? e;
            return { ...localizeErrors(language, [found])[0]!, line: null, field: `units_sold_${unitsSold[position]!.stream}` };
          }
          const at = /^\/lines\/(\d+)(?:\/(\w+))?$/.exec(e.pointer);
          if (!at) return { ...localizeErrors(language, [e])[0]!, line: null, field: e.pointer === '/period' ? 'period' : null };
          const position = Number(at[1]);
          // A quantity that could not be read is said as such, not as "not a number".
          const found =
            at[2] === 'quantity' && unread.has(position)
              ? unread.get(position)!
              : { ...e, params: { ...e.params, line: filled[position]!.index + 1 } };
          return { ...localizeErrors(language, [found])[0]!, line: filled[position]!.index, field: at[2] ?? null };
        })
        .filter((e, i, all) => all.findIndex((o) => o.line === e.line && o.field === e.field && o.message === e.message) === i);
      this.form(req, res, account, { period, lines: lines.length > 0 ? lines : blankLines(FORM_LINES), errors, soldValues }, 422);
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
      return this.checkPage(req, res, client, await this.declarations.checkCsv(account, new CsvBody(file.bytes, undefined), period), {
        lineOf: null,
      });
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

    const declaration = {
      period: pending.period,
      lines: lines.map((line) => ({ ...line, quantity: new ExactNumber(line.quantity) })),
      ...(unitsSold.length > 0
        ? { units_sold: unitsSold.map(([stream, quantity]) => ({ stream, quantity: new ExactNumber(quantity) })) }
        : {}),
    };
    const name = field(body, 'name')
      .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '')
      .replace(/\s+/gu, ' ')
      .trim();
    const nameError = name === '' ? words.nameMissing : name.length > MAX_NAME ? words.nameTooLong : null;
    // A per-product file's products, kept as the catalogue in the filing's transaction when she asked.
    const keep = source === 'file' && field(body, 'keep') === '1' && (pending.products?.length ?? 0) > 0;
    const again = { lineOf: null, source, products: pending.products, keep };
    if (nameError)
      return this.checkPage(req, res, client, await this.declarations.check(account, declaration), {
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
      onStored: async (manager, stored, filed) => {
        if (stored.revision !== pending.replaces + 1) throw new StaleCheck(stored.revision - 1);
        if (keep) await this.products.keepAsCatalogue(manager, writer, pending.period, productsOf(pending.products!));
        if (mailTo && mailLanguage) await this.outbox.enqueue(manager, this.filedMail(account, mailTo, mailLanguage, filed));
      },
    };
    try {
      result =
        source === 'derived'
          ? // Derived again from the catalogue and sales in the filing's transaction: filed only if they still give the checked lines.
            await this.products.file(account, writer, pending.period, undefined, origin, {
              ...options,
              expected: pending.lines.map(([stream, material, unit, quantity]) => [stream, material, unit, quantity]),
            })
          : await this.declarations.submit(account, declaration, undefined, origin, options);
    } catch (error) {
      if (error instanceof ValidationProblem) {
        // The rules changed under the checked lines (the account's streams, the catalogue): back to the form, with why.
        const errors = localizeErrors(language, error.errors).map((e) => ({ ...e, line: null, field: null }));
        return this.form(req, res, account, { period: pending.period, lines, errors, soldValues: Object.fromEntries(unitsSold) }, 422);
      }
      if (!(error instanceof StaleCheck)) throw error;
      const checked = await this.declarations.check(account, declaration);
      return this.checkPage(req, res, client, checked, { ...again, name, notice: words.stale(error.current), status: 409 });
    }
    if (result.status === 201 && mailTo) this.outbox.kick();
    this.submitted(res, result, 'filed');
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
    const declaration = await this.declarations.findOne(client.clientId, id);
    const revisions = await this.declarations.list(
      client.clientId,
      Object.assign(new ListDeclarationsQueryDto(), { period: declaration.period, limit: 100 }),
    );
    const m = this.views.messages(req, res).dashboardPages.declaration;
    const notice =
      result === 'created' ? m.created(declaration.revision, declaration.receipt) : result === 'unchanged' ? m.unchanged : null;
    const by = declaration.submitted_by?.type === 'dashboard' ? (declaration.submitted_by.declared_by_name ?? null) : null;
    // The confirmation: right after filing, the receipt, who declared and when, and what happens next.
    const language = this.views.language(req, res);
    const filed =
      result === 'filed' && by !== null
        ? { mailTo: this.outbox.enabled ? account.profile.email : null, next: this.whoFilesNext(language) }
        : null;
    const title = filed ? this.views.messages(req, res).dashboardPages.filed.title : m.title(declaration.period, declaration.revision);
    this.views.render(
      req,
      res,
      'declaration',
      { title, nav: 'declarations', liveData: true },
      {
        declaration,
        revisions: revisions.data,
        notice,
        filed,
        declaredBy: by,
        countsOnly: this.countsOnly(declaration.lines, declaration.units_sold),
      },
    );
  }

  /** The declaration as a file in the page's dialect, which uploads again unchanged. */
  @Get(':id/csv')
  async csv(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentClient() client: AuthenticatedClient,
    @Param('id') id: string,
  ): Promise<void> {
    const declaration = await this.declarations.findOne(client.clientId, id);
    const dialect = CSV_DIALECTS[this.views.language(req, res)];
    res.setHeader('Content-Type', CSV_MEDIA_TYPE);
    res.setHeader('Content-Disposition', `attachment; filename="declaration-${declaration.period}-r${declaration.revision}.csv"`);
    res.setHeader('Cache-Control', 'no-store');
    res.send(
      writeDeclarationCsv(
        declaration.lines.map((line) => ({ ...line, quantity: String(line.quantity) })),
        dialect,
        declaration.units_sold.map((entry) => ({ stream: entry.stream, quantity: String(entry.quantity) })),
      ),
    );
  }

  private submitted(res: Response, result: SubmitResult, created: 'created' | 'filed' = 'created'): void {
    res.redirect(303, `/dashboard/declarations/${result.body.id}?result=${result.status === 201 ? created : 'unchanged'}`);
  }

  /** The check page (declaration-check.presenter.ts), shared with the per-product file and the products page. */
  private checkPage(
    req: Request,
    res: Response,
    client: AuthenticatedClient,
    checked: CheckedDeclaration,
    options: CheckPageOptions,
  ): void {
    this.check.render(req, res, client, checked, options);
  }

  /** The confirmation e-mail of a filing, in the client's language. */
  private filedMail(account: Account, to: string, language: Language, d: DeclarationDto): OutgoingMail {
    const words = MESSAGES[language].mail.filed;
    const by = d.submitted_by?.type === 'dashboard' ? (d.submitted_by.declared_by_name ?? '') : '';
    return {
      kind: 'declaration_filed',
      clientId: account.clientId,
      to,
      language,
      subject: words.subject({ period: d.period, receipt: d.receipt }),
      text: words.text({
        company: account.profile.company ?? account.clientId,
        period: d.period,
        revision: d.revision,
        receipt: d.receipt,
        name: by,
        at: formatDateTime(language, d.submitted_at),
        lines: d.lines.length,
        totals: d.totals.map((total) => `${total.stream} ${formatQuantity(language, total.quantity, total.unit)}`),
        unitsSold: d.units_sold.map(
          (entry) => `${entry.stream} ${formatQuantity(language, entry.quantity, this.catalogue.countUnitOf(entry.stream) ?? 'uvc')}`,
        ),
        counts: d.lines
          .filter((line) => !this.catalogue.addsAcrossMaterials(line.unit) && !d.units_sold.some((entry) => entry.stream === line.stream))
          .map(
            (line) =>
              `${line.stream}, ${line.material_category?.name?.[language] ?? line.material}${MESSAGES[language].site.colon} ${formatQuantity(language, line.quantity, line.unit)}`,
          ),
        url: inLanguage(`${this.baseUrl}/dashboard/declarations/${d.id}`, language),
        contact: this.contact,
        next: this.whoFilesNext(language),
      }),
    };
  }

  /** What happens after filing, as the reference data states it once (pricing.json `who_files`): the operator's part, the producer's, and by when. */
  private whoFilesNext(language: Language): string[] {
    const w = this.catalogue.whoFiles;
    return [w.operator_does, w.you_still_do, w.by_when].map((text) => text[language].replace(/\s+/g, ' ').trim());
  }

  private form(req: Request, res: Response, account: Account, data: Record<string, unknown>, status = 200): void {
    const language = this.views.language(req, res);
    const streams = account.profile.streams
      .map((code) => this.catalogue.stream(code))
      .filter((stream) => stream !== undefined)
      .map((stream) => ({
        code: stream.code,
        name: stream.name[language],
        units: stream.units,
        materials: stream.materials.map((m) => m.name[language]),
      }));
    const units = [...new Set(streams.flatMap((s) => s.units))].map((code) => ({
      code,
      name: this.catalogue.unit(code)?.name[language] ?? code,
    }));
    const current = periodOf(parisDate(this.clock.now()));
    const soldValues = (data.soldValues ?? {}) as Record<string, string>;
    const unitsSold = this.countStreams(account).map((code) => ({
      stream: code,
      name: this.catalogue.stream(code)!.name[language],
      value: soldValues[code] ?? '',
    }));
    this.views.render(
      req,
      res,
      'declaration-new',
      { title: MESSAGES[language].dashboardPages.form.title, nav: 'declarations', liveData: true },
      {
        confirmed: account.confirmedAt !== null,
        streams,
        units,
        materials: [...new Set(streams.flatMap((s) => s.materials))],
        suggestedPeriod: `${current.half === 1 ? current.year - 1 : current.year}-S${current.half === 1 ? 2 : 1}`,
        period: '',
        errors: [],
        uploadErrors: [],
        uploadPeriod: '',
        fileName: null,
        report: null,
        ...data,
        unitsSold,
      },
      status,
    );
  }

  /** The account's streams that count consumer sales units (household packaging): one units-sold field each. */
  private countStreams(account: Account): string[] {
    return account.profile.streams.filter((code) => this.catalogue.countUnitOf(code) !== undefined);
  }

  /** The units-sold fields as typed, to show them again. */
  private soldValuesOf(account: Account, body: FormBody): Record<string, string> {
    return Object.fromEntries(this.countStreams(account).map((code) => [code, field(body, `units_sold_${code}`)]));
  }

  /** Whether a stream has per-material counts but no units sold stated: the page then says why they are not added up. */
  private countsOnly(lines: readonly { stream: string; unit: string }[], unitsSold: readonly { stream: string }[]): boolean {
    return this.check.countsOnly(lines, unitsSold);
  }
}

/** The most characters of the declarant's full name (the column's CHECK). */
const MAX_NAME = 200;

/** A revision was filed for the period between the check and the filing. */
class StaleCheck extends Error {
  constructor(readonly current: number) {
    super('stale check');
  }
}

/** A per-product file's products as the check page carried them, as the catalogue takes them. */
function productsOf(products: PendingProduct[]): KeptProduct[] {
  return products.map(([reference, stream, units, elements]) => ({
    reference,
    stream,
    units,
    elements: elements.map(([materialCode, weightG, perUnit]) => ({ materialCode, weightG, perUnit })),
  }));
}

function blankLines(n: number): FormLine[] {
  return Array.from({ length: n }, () => ({ stream: '', material: '', unit: '', quantity: '' }));
}

function clean(filters: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== ''));
}
