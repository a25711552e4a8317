import { Controller, Get } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { Public } from '../caller/audience.js';
import { PROBLEM_CONTENT_TYPE_BASE } from '../common/problem/problem-content-type.js';
import { ReadinessProblemDto } from '../common/problem/problem.dto.js';

// Documented here rather than by terminus, whose 503 is not what clients get: the ProblemFilter
// answers a failed check with problem+json (`checks` per dependency) and Retry-After.
const CHECKS = {
  type: 'object',
  description: 'Each check by name.',
  additionalProperties: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['up', 'down'] } } },
};
const HEALTHY = {
  type: 'object',
  required: ['status', 'details'],
  properties: { status: { type: 'string', enum: ['ok'] }, info: CHECKS, error: CHECKS, details: CHECKS },
};
const UNAVAILABLE = {
  status: 503,
  description: 'A check failed, or the service is shutting down: problem `service_unavailable`, with `checks`.',
  headers: { 'Retry-After': { description: 'Seconds to wait before probing again.', schema: { type: 'string', example: '5' } } },
  content: { [PROBLEM_CONTENT_TYPE_BASE]: { schema: { $ref: getSchemaPath(ReadinessProblemDto) } } },
};

/** Probes for orchestrators, outside the API prefix. */
@ApiTags('health')
@ApiExtraModels(ReadinessProblemDto)
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly dataSource: DataSource,
  ) {}

  @Get('live')
  @HealthCheck({ noCache: true, swaggerDocumentation: false })
  @ApiOperation({
    operationId: 'getLiveness',
    summary: 'Liveness: the process is up and serving',
    description: 'Checks nothing beyond the process itself: an orchestrator restarts the process when this fails. Public, never cached.',
  })
  @ApiOkResponse({ description: 'Up.', schema: HEALTHY })
  @ApiResponse(UNAVAILABLE)
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck({ noCache: true, swaggerDocumentation: false })
  @ApiOperation({
    operationId: 'getReadiness',
    summary: 'Readiness: the database answers within 2 s',
    description:
      "Runs `SELECT 1` through the service's own connection pool: 503 while the database is unreachable, so that a load balancer stops sending traffic until it is back. Public, never cached.",
  })
  @ApiOkResponse({ description: 'Ready: every check is up.', schema: HEALTHY })
  @ApiResponse(UNAVAILABLE)
  ready() {
    // `SELECT 1` through the app's own pool (given, so terminus need not look the DataSource up).
    return this.health.check([() => this.database.pingCheck('database', { connection: this.dataSource, timeout: 2_000 })]);
  }
}
