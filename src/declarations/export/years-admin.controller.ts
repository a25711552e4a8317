import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AdminApi } from '../../caller/audience.js';
import { isCsvDialectName } from '../../common/csv/csv-dialect.js';
import { ApiProblems } from '../../common/openapi.js';
import { ValidationProblem } from '../../common/problem/problem.js';
import { ANNUAL_CSV_COLUMNS, AnnualExportService } from './annual-export.service.js';

const ROW_SCHEMA = {
  type: 'object',
  required: ['client_id', 'company', 'country', 'idus', 'eco_organism', 'stream', 'material', 'material_category', 'unit', 'quantity', 'revisions'],
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

/** Operator: the annual filing per eco-organism. */
@ApiTags('admin')
@AdminApi()
@Controller('api/v1/admin/years/:year')
export class YearsAdminController {
  constructor(private readonly annual: AnnualExportService) {}

  @Get('export')
  @ApiOperation({
    operationId: 'exportYear',
    summary: 'The annual filing: each client\u2019s S1 + S2 totals per stream, material and unit (JSON or CSV)',
    description: [
      'Every household filing found is annual: this sums, per client, stream, material (published category, else the submitted text) and unit, the current revisions of S1 and S2 of the year, naming the receipts summed. ',
      '`eco_organism` keeps the streams the operator set to that eco-organism (`PUT /admin/clients/{id}/streams/{stream}`); it must be one the published data lists (else 422 with the list). ',
      '`missing_clients`: clients liable for an ended half-year of the year without a current declaration of it (as in the period summary). ',
      'JSON by default; CSV with `Accept: text/csv`, in the API\u2019s dialect (`,` and `.`) or with `dialect=fr` the French one (`;`, decimal comma, French headers), UTF-8 with BOM: ',
      `columns ${ANNUAL_CSV_COLUMNS.en.map((c) => `\`${c}\``).join(', ')}; a \`total\` row per sum, then a \`missing\` row per client with a half-year missing. `,
      'Streamed from one consistent snapshot through a cursor; a failure after the first byte cuts the connection.',
    ].join(''),
  })
  @ApiParam({ name: 'year', description: 'Four digits (else 404)', schema: { type: 'string', example: '2025' } })
  @ApiQuery({ name: 'eco_organism', required: false, description: 'An eco-organism name as `/api/v1/streams.json` lists it', schema: { type: 'string' } })
  @ApiQuery({ name: 'dialect', required: false, description: 'For CSV: `en` (default) or `fr`', schema: { type: 'string', enum: ['en', 'fr'] } })
  @ApiHeader({ name: 'Accept', required: false, description: '`text/csv` for CSV; JSON otherwise.', schema: { type: 'string' } })
  @ApiResponse({
    status: 200,
    description: 'The annual filing.',
    headers: { 'Content-Disposition': { description: 'For CSV: `attachment; filename="epr-annual-<year>[-<eco-organism>].csv"`.', schema: { type: 'string' } } },
    content: { 'application/json': { schema: JSON_SCHEMA }, 'text/csv': { schema: { type: 'string', example: `${ANNUAL_CSV_COLUMNS.en.join(',')}\n` } } },
  })
  @ApiProblems(404, 422)
  async export(@Param('year') year: string, @Query('eco_organism') eco: unknown, @Query('dialect') dialect: unknown, @Req() req: Request, @Res() res: Response): Promise<void> {
    const errors = [];
    if (eco !== undefined && (typeof eco !== 'string' || eco.trim() === '' || eco.length > 100)) {
      errors.push({ pointer: '/query/eco_organism', code: 'invalid_string', detail: 'must be an eco-organism name' });
    }
    if (dialect !== undefined && !isCsvDialectName(dialect)) errors.push({ pointer: '/query/dialect', code: 'invalid_csv_dialect', detail: 'must be en or fr' });
    if (errors.length > 0) throw new ValidationProblem(errors);
    const format = req.accepts(['application/json', 'text/csv']) === 'text/csv' ? 'csv' : 'json';
    await this.annual.write(year, eco as string | undefined, format, isCsvDialectName(dialect) ? dialect : 'en', res);
  }
}
