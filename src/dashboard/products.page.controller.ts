import { Body, Controller, Get, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { Account } from '../accounts/account.js';
import { CurrentAccount } from '../accounts/current-account.js';
import { DashboardPage } from '../caller/audience.js';
import { type AuthenticatedClient, CurrentClient } from '../caller/current-client.js';
import { Accepts, CsvBody, type FormBody, MultipartBody } from '../common/http/request-body.js';
import { type FieldError, ValidationProblem } from '../common/problem/problem.js';
import { Clock, parisDate } from '../calendar/clock.js';
import { periodOf } from '../calendar/half-year.js';
import { parsePeriod } from '../calendar/half-year.js';
import { fieldMessage, fieldPosition } from '../i18n/field-messages.js';
import { formatNumber, formatQuantity } from '../i18n/format.js';
import type { Language } from '../i18n/language.js';
import { messagesFor } from '../i18n/messages/index.js';
import { type ClientWriter, PREVIEW_CONTRIBUTIONS, ProductsService } from '../products/products.service.js';
import { DeclarationsService } from '../declarations/declarations.service.js';
import { CHECK_PAGE_PRODUCTS, DeclarationCheckPresenter } from './declaration-check.presenter.js';
import { HeavyRead } from '../rate-limit/heavy-reads.js';
import { DashboardViews } from './dashboard-views.js';
import { pageLanguage } from './page-language.js';
import { field } from './form-fields.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';

/** The person's language, as every dashboard page chooses it (page-language.ts: ?lang, the remembered choice, the browser's, French). */
const languageOf = (req: Request, res: Response): Language => pageLanguage(req, res);

/** A problem for the person: where it is and what to do, in their language (never the API's English detail). */
const shown = (language: Language, errors: FieldError[]) =>
  errors.map((error) => ({ position: fieldPosition(language, error) ?? null, message: fieldMessage(language, error) }));

const writerOf = (client: AuthenticatedClient, req: Request): ClientWriter => ({
  clientId: client.clientId,
  mode: client.mode,
  tokenId: null,
  sessionId: client.sessionId ?? null,
  requestId: typeof req.id === 'string' ? req.id : null,
});

/**
 * The client's products in a browser: the catalogue with its packaging, uploads of the catalogue
 * and of a half-year's sales (the same problem report as a declaration's spreadsheet), and the
 * declaration derived for a half-year, previewed then filed. Everything goes through
 * ProductsService exactly as the API's routes.
 */
@ApiExcludeController()
@DashboardPage()
@Controller('dashboard/products')
export class ProductsPageController {
  constructor(
    private readonly views: DashboardViews,
    private readonly products: ProductsService,
    private readonly clock: Clock,
    private readonly declarations: DeclarationsService,
    private readonly check: DeclarationCheckPresenter,
    private readonly catalogue: ReferenceCatalogue,
  ) {}

  @Get()
  async list(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentClient() client: AuthenticatedClient,
    @Query('result') result?: string,
    @Query('n') counts?: string,
  ): Promise<void> {
    await this.page(req, res, client, { notice: this.notice(languageOf(req, res), result, counts) });
  }

  @Post('upload')
  @Accepts('multipart')
  async upload(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentClient() client: AuthenticatedClient,
    @Body() body: MultipartBody,
  ): Promise<void> {
    const file = body instanceof MultipartBody ? body.files.file : undefined;
    if (!file || file.bytes.length === 0)
      return this.page(
        req,
        res,
        client,
        { productErrors: [{ pointer: '/file', code: 'file_missing', detail: 'Choose a CSV file to upload.' }] },
        422,
      );
    try {
      const result = await this.products.importProductsCsv(writerOf(client, req), new CsvBody(file.bytes, undefined));
      res.redirect(303, `/dashboard/products?result=imported&n=${result.created}-${result.replaced}-${result.unchanged}`);
    } catch (error) {
      if (!(error instanceof ValidationProblem)) throw error;
      await this.page(req, res, client, { productErrors: error.errors }, 422);
    }
  }

  @Post('sales')
  @Accepts('multipart')
  async sales(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentClient() client: AuthenticatedClient,
    @Body() body: MultipartBody,
  ): Promise<void> {
    const form = body instanceof MultipartBody ? body : new MultipartBody({}, {});
    const period = form.fields.period?.trim() ?? '';
    const file = form.files.file;
    if (!file || file.bytes.length === 0)
      return this.page(
        req,
        res,
        client,
        { salesErrors: [{ pointer: '/file', code: 'file_missing', detail: 'Choose a CSV file to upload.' }], salesPeriod: period },
        422,
      );
    try {
      const result = await this.products.recordSalesCsv(writerOf(client, req), period, new CsvBody(file.bytes, undefined));
      res.redirect(303, `/dashboard/products/derived?period=${encodeURIComponent(result.period)}&result=sales&n=${result.recorded}`);
    } catch (error) {
      if (!(error instanceof ValidationProblem)) throw error;
      await this.page(req, res, client, { salesErrors: error.errors, salesPeriod: period }, 422);
    }
  }

  @Get('derived')
  @HeavyRead()
  async derived(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentClient() client: AuthenticatedClient,
    @Query('period') period?: string,
    @Query('result') result?: string,
    @Query('n') n?: string,
  ): Promise<void> {
    const language = languageOf(req, res);
    const m = messagesFor(language).products;
    const chosen = typeof period === 'string' && parsePeriod(period) ? period : this.lastEndedPeriod();
    const preview = await this.products.preview(client, chosen);
    const number = (value: string | number) => formatNumber(language, value);
    this.views.render(
      req,
      res,
      'products-derived',
      { title: m.derivedTitle(chosen), nav: 'products', liveData: true },
      {
        lang: language,
        words: m,
        period: chosen,
        notice: result === 'sales' ? m.salesRecorded(Number(n) || 0, chosen) : null,
        lastFiled: preview.lastFiled ? m.lastFiled(preview.lastFiled.revision, preview.lastFiled.receipt) : null,
        omitted: preview.contributionsIncluded ? null : m.contributionsOmitted(number(preview.products), number(PREVIEW_CONTRIBUTIONS)),
        lines: preview.lines.map((line) => ({
          stream: line.stream,
          material: this.materialName(language, line.stream, line.material),
          kg: number(Number(line.kgRounded)),
          kgExact: number(line.kgExact),
          uvc: line.uvc === null ? null : number(Number(line.uvc)),
          contributions: line.contributions.map((c) => m.contribution(c.reference, number(c.units), number(c.kg))),
        })),
        unitsSold: preview.unitsSold.map((entry) => m.unitsSold(entry.stream, formatQuantity(language, entry.quantity, 'uvc'))),
        errors: [],
      },
    );
  }

  @Post('derived')
  @Accepts('form')
  async file(
    @Req() req: Request,
    @Res() res: Response,
    @CurrentAccount() account: Account,
    @CurrentClient() client: AuthenticatedClient,
    @Body() body: FormBody,
  ): Promise<void> {
    const period = field(body, 'period').trim();
    try {
      // Nothing is filed here: the check page shows the derived lines, and she declares them there by name (filed again from the catalogue).
      const { products, productCount, ...declaration } = await this.products.derivedDeclaration(client, period, CHECK_PAGE_PRODUCTS);
      this.check.render(req, res, client, await this.declarations.check(account, declaration), {
        lineOf: null,
        source: 'derived',
        shown: { products: products.map((p) => [p.name, p.stream, p.units, p.elements]), count: productCount },
      });
    } catch (error) {
      if (!(error instanceof ValidationProblem)) throw error;
      const language = languageOf(req, res);
      const m = messagesFor(language).products;
      this.views.render(
        req,
        res,
        'products-derived',
        { title: m.derivedTitle(period), nav: 'products', liveData: true },
        {
          lang: language,
          words: m,
          period,
          notice: null,
          lastFiled: null,
          omitted: null,
          lines: [],
          errors: shown(language, error.errors),
        },
        422,
      );
    }
  }

  private lastEndedPeriod(): string {
    const current = periodOf(parisDate(this.clock.now()));
    return current.half === 1 ? `${current.year - 1}-S2` : `${current.year}-S1`;
  }

  private notice(language: Language, result: string | undefined, counts: string | undefined): string | null {
    if (result !== 'imported') return null;
    const [created = 0, replaced = 0, unchanged = 0] = (counts ?? '').split('-').map((c) => Number(c) || 0);
    return messagesFor(language).products.imported(created, replaced, unchanged);
  }

  private async page(
    req: Request,
    res: Response,
    client: AuthenticatedClient,
    data: { notice?: string | null; productErrors?: FieldError[]; salesErrors?: FieldError[]; salesPeriod?: string },
    status = 200,
  ): Promise<void> {
    const language = languageOf(req, res);
    const m = messagesFor(language).products;
    const catalogue = await this.products.list(client, { limit: 100 });
    const number = (value: string | number) => formatNumber(language, value);
    this.views.render(
      req,
      res,
      'products',
      { title: m.title, nav: 'products', liveData: true },
      {
        lang: language,
        words: m,
        notice: data.notice ?? null,
        productErrors: shown(language, data.productErrors ?? []),
        salesErrors: shown(language, data.salesErrors ?? []),
        salesPeriod: data.salesPeriod ?? '',
        suggestedPeriod: this.lastEndedPeriod(),
        products: catalogue.items.map((product) => ({
          reference: product.reference,
          versions: product.versions.map((version) => ({
            validFrom: version.validFrom,
            name: version.name,
            stream: version.stream,
            filed: version.filed,
            elements: version.elements.map((e) =>
              m.element(this.materialName(language, version.stream, e.material), number(Number(e.weightG)), e.perUnit),
            ),
          })),
        })),
      },
      status,
    );
  }

  /** A material category by its published name in the page's language (its code if the catalogue has none). */
  private materialName(language: Language, stream: string, code: string): string {
    return this.catalogue.categoryName(stream, code)?.[language] ?? code;
  }
}
