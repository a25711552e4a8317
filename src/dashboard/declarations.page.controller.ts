import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
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
import { DeclarationsService, type SubmitResult } from '../declarations/declarations.service.js';
import { ListDeclarationsQueryDto } from '../declarations/dto/list-declarations-query.dto.js';
import { Clock, parisDate } from '../declarations/clock.js';
import { periodOf } from '../declarations/obligations/obligations.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { DashboardViews, localizeErrors } from './dashboard-views.js';
import { MESSAGES } from '../i18n/messages/index.js';
import { numberContext, readNumber } from '../i18n/read-number.js';
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
  ) {}

  @Get()
  async list(@Req() req: Request, @Res() res: Response, @CurrentClient() client: AuthenticatedClient, @Query() query: ListDeclarationsQueryDto): Promise<void> {
    const page = await this.declarations.list(client.clientId, query);
    const filters = { period: query.period ?? '', status: query.status ?? '' };
    const next = page.next_cursor ? `?${new URLSearchParams({ ...clean(filters), cursor: page.next_cursor }).toString()}` : null;
    const m = this.views.messages(req, res);
    this.views.render(req, res, 'declarations', { title: m.dashboardPages.declarations.title, nav: 'declarations', liveData: true }, { page, filters, next, paged: query.cursor !== undefined });
  }

  @Get('new')
  newForm(@Req() req: Request, @Res() res: Response, @CurrentAccount() account: Account): void {
    this.form(req, res, account, { lines: blankLines(FORM_LINES) });
  }

  @Post()
  @Accepts('form')
  async submitForm(@Req() req: Request, @Res() res: Response, @CurrentAccount() account: Account, @Body() body: FormBody): Promise<void> {
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
    const full = { where: undefined, message: MESSAGES[language].dashboardPages.form.tooManyLines(MAX_FORM_LINES), line: null, field: null };
    if (field(body, 'action') === 'add') {
      if (sent >= MAX_FORM_LINES) return this.form(req, res, account, { period, lines, errors: [full] }, sent > MAX_FORM_LINES ? 422 : 200);
      return this.form(req, res, account, { period, lines: [...lines, ...blankLines(1)] });
    }
    if (sent > MAX_FORM_LINES) return this.form(req, res, account, { period, lines, errors: [full] }, 422);
    // Blank lines are left out; the problems of the others point back at their place in the form.
    const filled = lines.map((line, index) => ({ line, index })).filter(({ line }) => COLUMNS.some((c) => line[c].trim() !== ''));
    // Quantities as people write them ("1 200,5", "4 800"): read with the evidence of the whole form; what cannot be read for sure is said why.
    const context = numberContext(filled.map(({ line }) => line.quantity));
    const unread = new Map<number, FieldError>();
    const quantities = filled.map(({ line, index }, at) => {
      const read = readNumber(line.quantity, context);
      if (read.ok) return new ExactNumber(read.value);
      unread.set(at, { pointer: `/lines/${at}/quantity`, code: read.code, detail: read.code, params: { ...read.params, line: index + 1, field: 'quantity' } });
      return line.quantity;
    });
    const submitted = { period, lines: filled.map(({ line }, at) => ({ stream: line.stream, material: line.material, unit: line.unit, quantity: quantities[at] })) };
    try {
      return this.submitted(res, await this.declarations.submit(account, submitted, undefined, submissionOrigin(req)));
    } catch (error) {
      if (!(error instanceof ValidationProblem)) throw error;
      const errors = error.errors
        .map((e) => {
          const at = /^\/lines\/(\d+)(?:\/(\w+))?$/.exec(e.pointer);
          if (!at) return { ...localizeErrors(language, [e])[0]!, line: null, field: e.pointer === '/period' ? 'period' : null };
          const position = Number(at[1]);
          // A quantity that could not be read is said as such, not as "not a number".
          const found = at[2] === 'quantity' && unread.has(position) ? unread.get(position)! : { ...e, params: { ...e.params, line: filled[position]!.index + 1 } };
          return { ...localizeErrors(language, [found])[0]!, line: filled[position]!.index, field: at[2] ?? null };
        })
        .filter((e, i, all) => all.findIndex((o) => o.line === e.line && o.field === e.field && o.message === e.message) === i);
      this.form(req, res, account, { period, lines: lines.length > 0 ? lines : blankLines(FORM_LINES), errors }, 422);
    }
  }

  @Post('upload')
  @Accepts('multipart')
  async upload(@Req() req: Request, @Res() res: Response, @CurrentAccount() account: Account, @Body() body: MultipartBody): Promise<void> {
    // No body at all (an empty form) reaches here as undefined.
    const form = body instanceof MultipartBody ? body : new MultipartBody({}, {});
    const period = form.fields.period?.trim() ?? '';
    const file = form.files.file;
    const language = this.views.language(req, res);
    if (!file || file.bytes.length === 0) {
      const errors: FieldError[] = [{ pointer: '/file', code: 'file_missing', detail: 'Choose a CSV file to upload.' }];
      return this.form(req, res, account, { period, lines: blankLines(FORM_LINES), uploadErrors: localizeErrors(language, errors), uploadPeriod: period }, 422);
    }
    try {
      return this.submitted(res, await this.declarations.submitCsv(account, new CsvBody(file.bytes, undefined), period, undefined, submissionOrigin(req)));
    } catch (error) {
      if (!(error instanceof ValidationProblem)) throw error;
      // The file back with its problems, for the person to open beside it (31.7).
      const report = uploadReport(language, { bytes: file.bytes, name: file.filename }, error.errors, error.total, MAX_REPORTED_ERRORS);
      this.form(req, res, account, { lines: blankLines(FORM_LINES), uploadErrors: localizeErrors(language, error.errors), uploadPeriod: period, fileName: file.filename, report }, 422);
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

  @Get(':id')
  async detail(@Req() req: Request, @Res() res: Response, @CurrentClient() client: AuthenticatedClient, @Param('id') id: string, @Query('result') result?: string): Promise<void> {
    const declaration = await this.declarations.findOne(client.clientId, id);
    const revisions = await this.declarations.list(client.clientId, Object.assign(new ListDeclarationsQueryDto(), { period: declaration.period, limit: 100 }));
    const m = this.views.messages(req, res).dashboardPages.declaration;
    const notice = result === 'created' ? m.created(declaration.revision, declaration.receipt) : result === 'unchanged' ? m.unchanged : null;
    this.views.render(req, res, 'declaration', { title: m.title(declaration.period, declaration.revision), nav: 'declarations', liveData: true }, { declaration, revisions: revisions.data, notice });
  }

  /** The declaration as a file in the page's dialect, which uploads again unchanged. */
  @Get(':id/csv')
  async csv(@Req() req: Request, @Res() res: Response, @CurrentClient() client: AuthenticatedClient, @Param('id') id: string): Promise<void> {
    const declaration = await this.declarations.findOne(client.clientId, id);
    const dialect = CSV_DIALECTS[this.views.language(req, res)];
    res.setHeader('Content-Type', CSV_MEDIA_TYPE);
    res.setHeader('Content-Disposition', `attachment; filename="declaration-${declaration.period}-r${declaration.revision}.csv"`);
    res.setHeader('Cache-Control', 'no-store');
    res.send(writeDeclarationCsv(declaration.lines.map((line) => ({ ...line, quantity: String(line.quantity) })), dialect));
  }

  private submitted(res: Response, result: SubmitResult): void {
    res.redirect(303, `/dashboard/declarations/${result.body.id}?result=${result.status === 201 ? 'created' : 'unchanged'}`);
  }

  private form(req: Request, res: Response, account: Account, data: Record<string, unknown>, status = 200): void {
    const language = this.views.language(req, res);
    const streams = account.profile.streams
      .map((code) => this.catalogue.stream(code))
      .filter((stream) => stream !== undefined)
      .map((stream) => ({ code: stream.code, name: stream.name[language], units: stream.units, materials: stream.materials.map((m) => m.name[language]) }));
    const units = [...new Set(streams.flatMap((s) => s.units))].map((code) => ({ code, name: this.catalogue.unit(code)?.name[language] ?? code }));
    const current = periodOf(parisDate(this.clock.now()));
    this.views.render(req, res, 'declaration-new', { title: MESSAGES[language].dashboardPages.form.title, nav: 'declarations', liveData: true }, {
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
    }, status);
  }
}

function blankLines(n: number): FormLine[] {
  return Array.from({ length: n }, () => ({ stream: '', material: '', unit: '', quantity: '' }));
}

function clean(filters: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== ''));
}
