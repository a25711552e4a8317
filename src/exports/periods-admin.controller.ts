import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import {
  ApiExtension,
  ApiExtraModels,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { CSV_DIALECT_DETAIL, CSV_DIALECT_QUERY, CSV_DIALECTS, type CsvDialect, isCsvDialectName } from '../common/csv/csv-dialect.js';
import { ValidationProblem } from '../common/problem/problem.js';
import type { Request, Response } from 'express';
import { ApiProblems } from '../common/openapi.js';
import { HEAVY_READS_PER_CALLER, HEAVY_READS_PER_PROCESS_TEXT, HeavyRead } from '../rate-limit/heavy-reads.js';
import { AdminApi } from '../caller/audience.js';
import { publishedSpelling } from '../common/spelling.js';
import { publishedNames } from '../reference/published-names.js';
import { PeriodExportDto, PeriodSummaryDto } from './dto/period-export.dto.js';
import {
  CSV_COLUMNS,
  CSV_DETAIL_COLUMNS,
  CSV_HEADERS,
  type ExportFormat,
  IDU_SEPARATOR,
  PeriodExportService,
} from './period-export.service.js';
import { EXPORT_DETAIL_QUERY, type ExportDetail, exportDetail, exportDetailErrors } from './export-products.js';

const PERIOD_PARAM = {
  name: 'period',
  description: 'A half-year, `YYYY-S1` or `YYYY-S2` (anything else: 404).',
  schema: { type: 'string', example: '2025-S1' },
};
const CSV_DESCRIPTION =
  `CSV (RFC 4180, UTF-8, comma, header row): one row per client and line, columns ${CSV_COLUMNS.map((c) => `\`${c}\``).join(', ')}; ` +
  `IDUs share one cell, separated by \`${IDU_SEPARATOR}\`. With \`dialect=fr\`, what French Excel opens as columns: UTF-8 with a byte order mark, \`;\` between cells, decimal comma, CRLF, the columns in French (${CSV_HEADERS.fr.map((c) => `\`${c}\``).join(', ')}). A cell that starts with \`=\`, \`+\`, \`-\`, \`@\`, a tab or a carriage return is written after a \`'\` so that spreadsheets show it as text. ` +
  `With \`detail=products\`, the columns ${CSV_DETAIL_COLUMNS.map((c) => `\`${c}\``).join(', ')} (in French with \`dialect=fr\`): a declaration derived from the client's catalogue is written as one row per packaging element of each product version it used (\`material\` and \`material_category\` the element's category, \`unit\` \`kg\`, \`quantity\` the kg that element gave: units × elements per unit × grams / 1000, exact, before the declaration's rounding to the gram), a declaration entered directly as its lines with the product columns empty.`;
const ECO_QUERY = {
  name: 'eco_organism',
  required: false,
  description:
    'Only the lines (and units sold) of the streams each client has set to this eco-organism (`PUT /admin/clients/{id}/streams/{stream}`); a client with none is left out. ' +
    'A name `/api/v1/streams.json` lists, in any case, with or without accents (`leko` is `Léko`); else 422 `unknown_eco_organism`. Not combined with `detail=products` (422).',
  schema: { type: 'string' },
};
const CSV_CONTENT = { 'text/csv': { schema: { type: 'string' as const, example: `${CSV_COLUMNS.join(',')}\n` } } };
const DISPOSITION = {
  'Content-Disposition': { description: '`attachment; filename="epr-declarations-<period>.csv"`.', schema: { type: 'string' } },
};

/** Operator: a period's filing export and summary. */
@ApiTags('admin')
@AdminApi()
@ApiExtraModels(PeriodExportDto)
@Controller('api/v1/admin/periods/:period')
export class PeriodsAdminController {
  constructor(private readonly exports: PeriodExportService) {}

  @Get('export')
  @HeavyRead()
  @ApiOperation({
    operationId: 'exportPeriod',
    summary: "A period's filing export: the current revision of every client (JSON or CSV)",
    description: [
      "For one half-year, the current revision of every client that declared it, with the client's confirmed company, country and IDUs; quantities are exact decimal strings.",
      '',
      'The same export as CSV is the operation `exportPeriodCsv` (`GET /api/v1/admin/periods/{period}/export.csv`), typed as text for generated clients; `Accept: text/csv` here answers that same file.',
      '',
      'With `detail=products`, each declaration also carries `products`: for a declaration derived from the client\u2019s product catalogue and sales, each product version it used (by reference) with its units sold and packaging elements; `null` for a declaration entered directly (its lines are all there is). Without it, the export is unchanged.',
      '',
      'Streamed from one consistent snapshot of the database, whatever its size. If the service fails after the first byte, the connection is cut rather than the body ended: a complete download ends with `]}` (JSON) or the chunked terminator.',
      `At most ${HEAVY_READS_PER_CALLER} exports and other heavy reads of one operator identity run at once: another answers 429 \`rate_limited\` with \`Retry-After\`. ${HEAVY_READS_PER_PROCESS_TEXT}`,
    ].join('\n'),
  })
  @ApiExtension('x-csv-operation', 'exportPeriodCsv')
  @ApiParam(PERIOD_PARAM)
  @ApiQuery(CSV_DIALECT_QUERY)
  @ApiQuery(EXPORT_DETAIL_QUERY)
  @ApiQuery(ECO_QUERY)
  @ApiHeader({
    name: 'Accept',
    required: false,
    description: '`text/csv` for the file of `exportPeriodCsv`; JSON otherwise.',
    schema: { type: 'string' },
  })
  @ApiResponse({
    status: 200,
    description: 'The export.',
    content: { 'application/json': { schema: { $ref: getSchemaPath(PeriodExportDto) } } },
  })
  @ApiProblems(404, 422)
  async export(
    @Param('period') period: string,
    @Query('dialect') dialect: unknown,
    @Query('detail') detail: unknown,
    @Query('eco_organism') eco: unknown,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const query = checkedQuery(dialect, detail, eco);
    const format: ExportFormat = req.accepts(['application/json', 'text/csv']) === 'text/csv' ? 'csv' : 'json';
    await this.exports.writeExport(period, format, res, query.dialect, query.detail, query.eco);
  }

  @Get('export.csv')
  @HeavyRead()
  @ApiOperation({
    operationId: 'exportPeriodCsv',
    summary: "A period's filing export as CSV",
    description: `The rows of \`exportPeriod\` as a CSV file, in an operation of its own so that a generated client types the answer as text without a cast. ${CSV_DESCRIPTION}`,
  })
  @ApiParam(PERIOD_PARAM)
  @ApiQuery(CSV_DIALECT_QUERY)
  @ApiQuery(EXPORT_DETAIL_QUERY)
  @ApiQuery(ECO_QUERY)
  @ApiResponse({ status: 200, description: 'The export as CSV.', headers: DISPOSITION, content: CSV_CONTENT })
  @ApiProblems(404, 422)
  async exportCsv(
    @Param('period') period: string,
    @Query('dialect') dialect: unknown,
    @Query('detail') detail: unknown,
    @Query('eco_organism') eco: unknown,
    @Res() res: Response,
  ): Promise<void> {
    const query = checkedQuery(dialect, detail, eco);
    await this.exports.writeExport(period, 'csv', res, query.dialect, query.detail, query.eco);
  }

  @Get('summary')
  @ApiOperation({
    operationId: 'summarisePeriod',
    summary: "A period's totals across clients, and who has not declared",
    description:
      'Over the current revision of every client: exact totals (PostgreSQL numeric, as decimal strings) per stream, material and unit, and per stream and unit; how many confirmed clients there are, how many are liable for the period, how many declared, and which liable clients have not. ' +
      'A client is liable for a half-year when one of its confirmed streams is declared from it or earlier (`liable_from` of `PUT /admin/clients/{id}/streams/{stream}`, else the half-year of its first confirmation) and it is not offboarded; ' +
      'it is missing only once the half-year has ended (`ended`).',
  })
  @ApiParam(PERIOD_PARAM)
  @ApiOkResponse({ description: "The period's exact totals and who has declared.", type: PeriodSummaryDto })
  @ApiProblems(404)
  async summary(@Param('period') period: string): Promise<PeriodSummaryDto> {
    return PeriodSummaryDto.from(await this.exports.summary(period));
  }
}

/** The query of both export operations, checked before anything is read: every problem at once. */
function checkedQuery(
  dialect: unknown,
  detail: unknown,
  eco: unknown,
): { dialect: CsvDialect; detail: ExportDetail | undefined; eco: string | undefined } {
  const errors = [
    ...(dialect === undefined || isCsvDialectName(dialect)
      ? []
      : [{ pointer: '/query/dialect', code: 'invalid_csv_dialect', detail: CSV_DIALECT_DETAIL }]),
    ...exportDetailErrors(detail),
    ...(eco === undefined || (typeof eco === 'string' && eco.trim() !== '' && eco.length <= 100)
      ? []
      : [{ pointer: '/query/eco_organism', code: 'invalid_string', detail: 'must be an eco-organism name' }]),
  ];
  if (errors.length > 0) throw new ValidationProblem(errors);
  // Named in any case, with or without accents (`leko`): read as published (`Léko`).
  const named = eco as string | undefined;
  return {
    dialect: isCsvDialectName(dialect) ? CSV_DIALECTS[dialect] : CSV_DIALECTS.en,
    detail: exportDetail(detail),
    eco: named && (publishedSpelling(named, publishedNames.ecoOrganisms()) ?? named),
  };
}
