import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { Body, Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { Account } from '../accounts/account.js';
import { CurrentAccount } from '../accounts/current-account.js';
import { CsrfProtection } from '../auth/sessions/csrf.js';
import { DashboardPage } from '../caller/audience.js';
import { type AuthenticatedClient, CurrentClient } from '../caller/current-client.js';
import { Clock, parisDate } from '../calendar/clock.js';
import { periodOf } from '../calendar/half-year.js';
import { Accepts, type FormBody, MultipartBody } from '../common/http/request-body.js';
import { NotFoundProblem, type FieldError, ValidationProblem } from '../common/problem/problem.js';
import { DeclarationsService } from '../declarations/declarations.service.js';
import { fieldMessage, fieldPosition } from '../i18n/field-messages.js';
import type { Language } from '../i18n/language.js';
import { MESSAGES } from '../i18n/messages/index.js';
import { numberConvention } from '../i18n/read-number.js';
import { ProductsService } from '../products/products.service.js';
import {
  type ColumnMapping,
  columnKeys,
  PRODUCT_FILE_FIELDS,
  type ProductFileField,
  readProductSheet,
  recogniseColumns,
  REQUIRED_FIELDS,
  rememberedColumns,
  validMapping,
} from '../products/spreadsheet/product-sheet.js';
import { TEMPLATE_MEDIA_TYPES, writeProductTemplate } from '../products/spreadsheet/product-template.js';
import { readSpreadsheet, SpreadsheetRefused, type SpreadsheetFormat } from '../products/spreadsheet/read-spreadsheet.js';
import { inSpreadsheetSlot } from '../products/spreadsheet/spreadsheet-slots.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { DashboardViews, type PersonError } from './dashboard-views.js';
import { CHECK_PAGE_WARNINGS, DeclarationCheckPresenter, type PendingProduct } from './declaration-check.presenter.js';
import { field } from './form-fields.js';

/** The purpose of the seal on a file's rows waiting for the column step. */
const COLUMNS_STEP = 'product-file-columns';
/** The most bytes the rows of a file waiting for its column step inflate to (sealed by this service; a bound all the same). */
const MAX_TABLE_BYTES = 16 * 1024 * 1024;
/** The column step shows the first rows of each column, to recognise it by. */
const SAMPLE_ROWS = 3;

/**
 * « Nouvelle déclaration »'s first way: her per-product spreadsheet (.xlsx, .ods or CSV, one row per
 * packaging element), its templates, and, when its headers are not the template's, the column step
 * (remembered for her next upload). A file that reads goes to the check page every filing goes to
 * (declaration-check.presenter.ts); nothing is stored before she declares it there.
 */
@ApiExcludeController()
@DashboardPage()
@Controller('dashboard/declarations')
export class ProductFilePageController {
  constructor(
    private readonly views: DashboardViews,
    private readonly products: ProductsService,
    private readonly declarations: DeclarationsService,
    private readonly check: DeclarationCheckPresenter,
    private readonly catalogue: ReferenceCatalogue,
    private readonly csrf: CsrfProtection,
    private readonly clock: Clock,
  ) {}

  @Post('product-file')
  @Accepts('multipart')
  async upload(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentAccount() account: Account,
    @CurrentClient() client: AuthenticatedClient,
    @Body() body: MultipartBody,
  ): Promise<void> {
    const bytes = body instanceof MultipartBody ? (body.files.file?.bytes.length ?? 0) : 0;
    return inSpreadsheetSlot(bytes, () => this.read(req, res, account, client, body));
  }

  private async read(req: Request, res: Response, account: Account, client: AuthenticatedClient, body: MultipartBody): Promise<void> {
    const form = body instanceof MultipartBody ? body : new MultipartBody({}, {});
    const period = form.fields.period?.trim() ?? '';
    const file = form.files.file;
    const words = this.views.messages(req, res).dashboardPages.productFile;
    if (!file || file.bytes.length === 0)
      return this.errors(req, res, { period, fileName: null, errors: [{ where: undefined, message: words.refused.empty_file }] });
    let rows: string[][];
    try {
      rows = (await readSpreadsheet(file.bytes)).rows;
    } catch (error) {
      if (!(error instanceof SpreadsheetRefused)) throw error;
      const refused = words.refused[error.code];
      const message = typeof refused === 'function' ? refused(Number(error.params.max ?? 0)) : refused;
      return this.errors(req, res, { period, fileName: file.filename, errors: [{ where: undefined, message }] });
    }
    const header = rows[0] ?? [];
    const recognised = recogniseColumns(header);
    if (recognised.missing.length === 0) return this.toCheck(req, res, account, client, rows, recognised.mapping, period, file.filename);
    const saved = await this.products.rememberedColumns(client.clientId);
    const remembered = saved ? rememberedColumns(header, saved) : undefined;
    if (remembered) return this.toCheck(req, res, account, client, rows, remembered, period, file.filename);
    this.columnStep(req, res, client, { rows, period, fileName: file.filename, mapping: recognised.mapping, invalid: false });
  }

  /** The column step's answer: which column holds what, remembered for her next file; then the check page. */
  @Post('product-file/columns')
  @Accepts('form')
  async columns(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentAccount() account: Account,
    @CurrentClient() client: AuthenticatedClient,
    @Body() body: FormBody,
  ): Promise<void> {
    return inSpreadsheetSlot(field(body, 'table').length, () => this.mapped(req, res, account, client, body));
  }

  private async mapped(req: Request, res: Response, account: Account, client: AuthenticatedClient, body: FormBody): Promise<void> {
    const table = this.openTable(field(body, 'table'), field(body, 'seal'), client);
    const words = this.views.messages(req, res).dashboardPages;
    if (!table)
      return this.errors(req, res, { period: '', fileName: null, errors: [{ where: undefined, message: words.check.expired }] }, 400);
    const header = table.rows[0] ?? [];
    const mapping: ColumnMapping = {};
    for (const name of PRODUCT_FILE_FIELDS) {
      const chosen = field(body, `column_${name}`);
      if (/^\d{1,3}$/.test(chosen)) mapping[name] = Number(chosen);
    }
    if (!validMapping(header, mapping)) return this.columnStep(req, res, client, { ...table, mapping, invalid: true }, 422);
    await this.products.rememberColumns(client.clientId, columnKeys(header, mapping));
    return this.toCheck(req, res, account, client, table.rows, mapping, table.period, table.fileName);
  }

  /** The template in the page's language: `.xlsx` (with a material drop-down), `.ods` or `.csv`. */
  @Get('product-file/:name')
  async template(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentAccount() account: Account,
    @Param('name') name: string,
  ): Promise<void> {
    const format = /^template\.(xlsx|ods|csv)$/.exec(name)?.[1] as SpreadsheetFormat | undefined;
    if (!format) throw new NotFoundProblem('Template');
    const language = this.views.language(req, res);
    const words = MESSAGES[language].dashboardPages.productFile;
    const stream = this.streamOf(account) ?? 'EMB';
    const materials = this.catalogue.stream(stream)?.materials ?? [];
    const nameOf = (code: string) => materials.find((m) => m.code === code)?.name[language] ?? code;
    const e = words.examples;
    const bytes = await writeProductTemplate(format, {
      language,
      header: ['product', 'units', 'element', 'material', 'weight_g', 'per_unit'].map((f) => words.columns[f as ProductFileField]),
      sheetProducts: words.sheetProducts,
      sheetMaterials: words.sheetMaterials,
      materialsNote: words.materialsNote,
      examples: [
        [e.shortbread, '40000', e.box, nameOf('paper_cardboard'), '45.5', '1'],
        ['', '', e.film, nameOf('plastic_pe_pp_flexible'), '3.2', '1'],
        [e.butter, '30000', e.box, nameOf('paper_cardboard'), '45.5', '1'],
        ['', '', e.film, nameOf('plastic_pe_pp_flexible'), '3.2', '1'],
        [e.spread, '20000', e.jar, nameOf('glass'), '210', '1'],
        ['', '', e.lid, nameOf('steel'), '6', '1'],
      ],
      materials: materials.map((m) => m.name[language]),
    });
    res.setHeader('Content-Type', TEMPLATE_MEDIA_TYPES[format]);
    res.setHeader('Content-Disposition', `attachment; filename="${words.templateFile(format)}"`);
    res.setHeader('Cache-Control', 'no-store');
    res.send(bytes);
  }

  /** The file's products checked and derived (ProductsService.productFile), then the declaration checked: the check page, or the problems by row and column. */
  private async toCheck(
    req: Request,
    res: Response,
    account: Account,
    client: AuthenticatedClient,
    rows: string[][],
    mapping: ColumnMapping,
    period: string,
    fileName: string,
  ): Promise<void> {
    const language = this.views.language(req, res);
    const words = MESSAGES[language].dashboardPages.productFile;
    const stream = this.streamOf(account);
    if (mapping.stream === undefined && stream === undefined)
      return this.errors(req, res, { period, fileName, errors: [{ where: undefined, message: words.streamColumn }] });
    const sheet = readProductSheet(rows, mapping, { stream, period, convention: numberConvention(language) });
    try {
      const file = this.products.productFile(sheet, period);
      const checked = await this.declarations.check(account, file.declaration, { warningsPerCode: CHECK_PAGE_WARNINGS });
      const products: PendingProduct[] = file.products.map((p) => [
        p.reference,
        p.stream,
        p.units,
        p.elements.map((e): [string, string, number] => [e.materialCode, e.weightG, e.perUnit]),
      ]);
      this.check.render(req, res, client, checked, { lineOf: null, source: 'file', products });
    } catch (error) {
      if (!(error instanceof ValidationProblem)) throw error;
      this.errors(req, res, { period, fileName, errors: error.errors.map((e) => this.shown(language, e)) });
    }
  }

  /** A problem of the file as she reads it: the row and her column's header, and what to do. */
  private shown(language: Language, error: FieldError): PersonError {
    const words = MESSAGES[language].dashboardPages.productFile;
    const params = (error.params ?? {}) as Record<string, unknown>;
    const column = typeof params.column === 'string' ? params.column : undefined;
    const where = error.row !== undefined ? words.where(error.row, column) : fieldPosition(language, error);
    const message = fieldMessage(language, error);
    return { where, message };
  }

  /** The account's stream a file without a stream column is for: its only one, else its only one counting consumer sales units. */
  private streamOf(account: Account): string | undefined {
    const streams = account.profile.streams.filter((code) => this.catalogue.stream(code) !== undefined);
    if (streams.length === 1) return streams[0];
    const counting = streams.filter((code) => this.catalogue.countUnitOf(code) !== undefined);
    return counting.length === 1 ? counting[0] : streams.length === 0 ? 'EMB' : undefined;
  }

  private suggestedPeriod(): string {
    const current = periodOf(parisDate(this.clock.now()));
    return `${current.half === 1 ? current.year - 1 : current.year}-S${current.half === 1 ? 2 : 1}`;
  }

  /** The upload again with the problems of her file (nothing stored). */
  private errors(
    req: Request,
    res: Response,
    data: { period: string; fileName: string | null; errors: PersonError[] },
    status = 422,
  ): void {
    const m = this.views.messages(req, res).dashboardPages;
    this.views.render(
      req,
      res,
      'product-file',
      { title: m.form.title, nav: 'declarations', liveData: true },
      { step: 'errors', productFile: { ...data, suggestedPeriod: this.suggestedPeriod() }, suggestedPeriod: this.suggestedPeriod() },
      status,
    );
  }

  /** Which column holds what: one select per field, each offering her headers with their first values; the rows travel sealed. */
  private columnStep(
    req: Request,
    res: Response,
    client: AuthenticatedClient,
    data: { rows: string[][]; period: string; fileName: string; mapping: ColumnMapping; invalid: boolean },
    status = 200,
  ): void {
    const language = this.views.language(req, res);
    const words = MESSAGES[language].dashboardPages.productFile;
    const header = data.rows[0] ?? [];
    const value = `z.${deflateRawSync(JSON.stringify({ rows: data.rows, period: data.period, fileName: data.fileName })).toString('base64url')}`;
    const columns = header.map((name, index) => {
      const samples = data.rows
        .slice(1, 1 + SAMPLE_ROWS)
        .map((row) => row[index] ?? '')
        .filter((cell) => cell !== '');
      return {
        index,
        label: `${name || `${words.column} ${index + 1}`}${samples.length > 0 ? ` (${samples.join(', ')})` : ''}`.slice(0, 120),
      };
    });
    this.views.render(
      req,
      res,
      'product-file',
      { title: words.columnsTitle, nav: 'declarations', liveData: true },
      {
        step: 'columns',
        fileName: data.fileName,
        invalid: data.invalid,
        table: value,
        seal: this.csrf.seal(COLUMNS_STEP, client.sessionId ?? '', value),
        fields: PRODUCT_FILE_FIELDS.map((name) => ({
          name,
          label: words.columns[name],
          required: REQUIRED_FIELDS.includes(name),
          chosen: data.mapping[name] ?? null,
        })),
        columns,
      },
      status,
    );
  }

  private openTable(
    value: string,
    seal: string,
    client: AuthenticatedClient,
  ): { rows: string[][]; period: string; fileName: string } | undefined {
    if (value === '' || seal === '' || !value.startsWith('z.') || !this.csrf.verifySeal(COLUMNS_STEP, client.sessionId ?? '', value, seal))
      return undefined;
    const json = inflateRawSync(Buffer.from(value.slice(2), 'base64url'), { maxOutputLength: MAX_TABLE_BYTES }).toString('utf8');
    return JSON.parse(json) as { rows: string[][]; period: string; fileName: string };
  }
}
