import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import {
  ApiExtension,
  ApiExtraModels,
  ApiHeader,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AdminApi } from '../caller/audience.js';
import { CSV_DIALECT_DETAIL, CSV_DIALECT_QUERY, isCsvDialectName } from '../common/csv/csv-dialect.js';
import { ApiProblems } from '../common/openapi.js';
import { HEAVY_READS_PER_CALLER, HEAVY_READS_PER_PROCESS_TEXT, HeavyRead } from '../rate-limit/heavy-reads.js';
import { ValidationProblem } from '../common/problem/problem.js';
import { ANNUAL_CSV_COLUMNS, ANNUAL_CSV_DETAIL_COLUMNS, AnnualExportService } from './annual-export.service.js';
import { ExportProductDto } from './dto/period-export.dto.js';
import { EXPORT_DETAIL_QUERY, type ExportDetail, exportDetail, exportDetailErrors } from './export-products.js';
import { publishedSpelling } from '../common/spelling.js';
import { publishedNames } from '../reference/published-names.js';

const ROW_SCHEMA = {
  type: 'object',
  required: [
    'client_id',
    'company',
    'country',
    'idus',
    'eco_organism',
    'stream',
    'material',
    'material_category',
    'unit',
    'quantity',
    'revisions',
  ],
  properties: {
    client_id: { type: 'string' },
    company: { type: 'string', nullable: true },
    country: { type: 'string', nullable: true },
    idus: { type: 'array', items: { type: 'string' } },
    eco_organism: { type: 'string', nullable: true },
    stream: { type: 'string' },
    material: { type: 'string', nullable: true, description: 'The submitted text, when it names no published category' },
    material_category: { type: 'string', nullable: true },
    unit: { type: 'string' },
    quantity: { type: 'string', pattern: '^[0-9]+(\\.[0-9]{1,3})?$', description: 'Exact S1 + S2 sum (decimal string)' },
    revisions: {
      type: 'object',
      required: ['s1', 's2'],
      description: 'The receipts of the current revisions summed (null: that half-year has none with these lines)',
      properties: { s1: { type: 'string', nullable: true }, s2: { type: 'string', nullable: true } },
    },
  },
};
const JSON_SCHEMA = {
  type: 'object' as const,
  required: ['year', 'eco_organism', 'rows', 'missing_clients'],
  properties: {
    year: { type: 'integer' },
    eco_organism: { type: 'string', nullable: true },
    rows: { type: 'array', items: ROW_SCHEMA },
    declarations: {
      type: 'array',
      description:
        'Only with `detail=products` (absent otherwise): the current revisions of S1 and S2 summed in `rows`, by client then half-year, each with `products`: ' +
        'for a declaration derived from the client\u2019s product catalogue and sales, each product version it used (with `eco_organism`, those of the streams set to it); `null` for a declaration entered directly.',
      items: {
        type: 'object',
        required: ['client_id', 'period', 'declaration_id', 'receipt', 'products'],
        properties: {
          client_id: { type: 'string' },
          period: { type: 'string', pattern: '^[0-9]{4}-S[12]$' },
          declaration_id: { type: 'string', format: 'uuid' },
          receipt: { type: 'string' },
          products: { type: 'array', nullable: true, items: { $ref: getSchemaPath(ExportProductDto) } },
        },
      },
    },
    missing_clients: {
      type: 'array',
      items: {
        type: 'object',
        required: ['client_id', 'company', 'email', 'missing_periods'],
        properties: {
          client_id: { type: 'string' },
          company: { type: 'string', nullable: true },
          email: { type: 'string', nullable: true },
          missing_periods: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
};

const YEAR_PARAM = { name: 'year', description: 'Four digits (else 404)', schema: { type: 'string', example: '2025' } };
const ECO_QUERY = {
  name: 'eco_organism',
  required: false,
  description: 'An eco-organism name as `/api/v1/streams.json` lists it',
  schema: { type: 'string' },
};
const DIALECT_QUERY = {
  name: 'dialect',
  required: false,
  description: CSV_DIALECT_QUERY.description,
  schema: CSV_DIALECT_QUERY.schema,
};
const DISPOSITION = {
  'Content-Disposition': { description: '`attachment; filename="epr-annual-<year>[-<eco-organism>].csv"`.', schema: { type: 'string' } },
};
const CSV_CONTENT = { 'text/csv': { schema: { type: 'string' as const, example: `${ANNUAL_CSV_COLUMNS.en.join(',')}\n` } } };

/** Operator: the annual filing per eco-organism. */
@ApiTags('admin')
@AdminApi()
@ApiExtraModels(ExportProductDto)
@Controller('api/v1/admin/years/:year')
export class YearsAdminController {
  constructor(private readonly annual: AnnualExportService) {}

  @Get('export')
  @HeavyRead()
  @ApiOperation({
    operationId: 'exportYear',
    summary: 'The annual filing: each client\u2019s S1 + S2 totals per stream, material and unit (JSON)',
    description: [
      'Every household filing found is annual: this sums, per client, stream, material (published category, else the submitted text) and unit, the current revisions of S1 and S2 of the year, naming the receipts summed. ',
      "A `uvc` row counts the units whose packaging contains that material, never added up across materials; after a stream's materials, a row with `material` and `material_category` null and unit `uvc` (CSV: `kind` `units_sold`) gives the client's consumer sales units sold for the stream, S1 + S2 as stated (`units_sold`), when every current revision of the year with lines of the stream states them. ",
      '`eco_organism` keeps the streams the operator set to that eco-organism (`PUT /admin/clients/{id}/streams/{stream}`); it must be one the published data lists (else 422 with the list). ',
      '`missing_clients`: clients liable for an ended half-year of the year without a current declaration of it (as in the period summary). ',
      '`detail=products` adds `declarations`: the per-product detail of the revisions summed (what a filing per consumer sales unit needs); without it the filing is unchanged. ',
      'The same filing as CSV is the operation `exportYearCsv` (`GET /api/v1/admin/years/{year}/export.csv`), typed as text for generated clients; `Accept: text/csv` here answers that same file (and `dialect` applies). ',
      'Streamed from one consistent snapshot through a cursor; a failure after the first byte cuts the connection. ',
      `At most ${HEAVY_READS_PER_CALLER} exports and other heavy reads of one operator identity run at once: another answers 429 \`rate_limited\` with \`Retry-After\`. ${HEAVY_READS_PER_PROCESS_TEXT}`,
    ].join(''),
  })
  @ApiExtension('x-csv-operation', 'exportYearCsv')
  @ApiParam(YEAR_PARAM)
  @ApiQuery(ECO_QUERY)
  @ApiQuery({ ...DIALECT_QUERY, description: 'With `Accept: text/csv` only (see `exportYearCsv`): `en` (default) or `fr`' })
  @ApiQuery(EXPORT_DETAIL_QUERY)
  @ApiHeader({
    name: 'Accept',
    required: false,
    description: '`text/csv` for the file of `exportYearCsv`; JSON otherwise.',
    schema: { type: 'string' },
  })
  @ApiResponse({ status: 200, description: 'The annual filing.', content: { 'application/json': { schema: JSON_SCHEMA } } })
  @ApiProblems(404, 422)
  async export(
    @Param('year') year: string,
    @Query('eco_organism') eco: unknown,
    @Query('dialect') dialect: unknown,
    @Query('detail') detail: unknown,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const format = req.accepts(['application/json', 'text/csv']) === 'text/csv' ? 'csv' : 'json';
    const query = checkedQuery(eco, dialect, detail);
    await this.annual.write(year, query.eco, format, isCsvDialectName(dialect) ? dialect : 'en', res, query.detail);
  }

  @Get('export.csv')
  @HeavyRead()
  @ApiOperation({
    operationId: 'exportYearCsv',
    summary: 'The annual filing as CSV',
    description: [
      'The rows of `exportYear` as a CSV file, in an operation of its own so that a generated client types the answer as text without a cast. ',
      'In the API\u2019s dialect (`,` and `.`) or with `dialect=fr` the French one (`;`, decimal comma, French headers), UTF-8 with BOM: ',
      `columns ${ANNUAL_CSV_COLUMNS.en.map((c) => `\`${c}\``).join(', ')}; a \`total\` row per sum, then a \`missing\` row per client with a half-year missing. `,
      `With \`detail=products\`: the columns ${ANNUAL_CSV_DETAIL_COLUMNS.en.map((c) => `\`${c}\``).join(', ')} (in French with \`dialect=fr\`), and between the \`total\` and the \`missing\` rows a \`product\` row per packaging element of each product version a derived declaration of the year used `,
      '(`material_category` the element\u2019s, `unit` `kg`, `quantity` the kg that element gave: units × elements per unit × grams / 1000, exact; the receipt in `s1_receipt` or `s2_receipt` and `period` say which half-year); a declaration entered directly has only its `total` rows. ',
      'Streamed from one consistent snapshot through a cursor; a failure after the first byte cuts the connection. ',
      `At most ${HEAVY_READS_PER_CALLER} exports and other heavy reads of one operator identity run at once: another answers 429 \`rate_limited\` with \`Retry-After\`. ${HEAVY_READS_PER_PROCESS_TEXT}`,
    ].join(''),
  })
  @ApiParam(YEAR_PARAM)
  @ApiQuery(ECO_QUERY)
  @ApiQuery(DIALECT_QUERY)
  @ApiQuery(EXPORT_DETAIL_QUERY)
  @ApiResponse({ status: 200, description: 'The annual filing as CSV.', headers: DISPOSITION, content: CSV_CONTENT })
  @ApiProblems(404, 422)
  async exportCsv(
    @Param('year') year: string,
    @Query('eco_organism') eco: unknown,
    @Query('dialect') dialect: unknown,
    @Query('detail') detail: unknown,
    @Res() res: Response,
  ): Promise<void> {
    const query = checkedQuery(eco, dialect, detail);
    await this.annual.write(year, query.eco, 'csv', isCsvDialectName(dialect) ? dialect : 'en', res, query.detail);
  }
}

/** The query of both operations, checked before anything is read: every problem at once. */
function checkedQuery(eco: unknown, dialect: unknown, detail: unknown): { eco: string | undefined; detail: ExportDetail | undefined } {
  const errors = [];
  if (eco !== undefined && (typeof eco !== 'string' || eco.trim() === '' || eco.length > 100)) {
    errors.push({ pointer: '/query/eco_organism', code: 'invalid_string', detail: 'must be an eco-organism name' });
  }
  if (dialect !== undefined && !isCsvDialectName(dialect))
    errors.push({ pointer: '/query/dialect', code: 'invalid_csv_dialect', detail: CSV_DIALECT_DETAIL });
  errors.push(...exportDetailErrors(detail));
  if (errors.length > 0) throw new ValidationProblem(errors);
  // Named in any case, with or without accents (`leko`): read as published (`Léko`).
  const named = eco as string | undefined;
  return { eco: named && (publishedSpelling(named, publishedNames.ecoOrganisms()) ?? named), detail: exportDetail(detail) };
}
