import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsRfc3339, MatchesPattern } from '../../common/paging/query-validators.js';
import { PageQueryDto } from '../../common/paging/page-query.dto.js';
import { UUID_PATTERN } from '../../common/uuid.js';
import type { Page } from '../../common/paging/keyset-cursor.js';
import type { AuditEvent, AuditQuery } from '../audit-event.js';

export class ListAuditQueryDto extends PageQueryDto {
  /** Only entries about this client. */
  @ApiPropertyOptional({ pattern: '^[a-z0-9][a-z0-9_-]{2,62}$' })
  @IsOptional()
  @MatchesPattern('invalidClientId', /^[a-z0-9][a-z0-9_-]{2,62}$/, 'must be a client id')
  client_id?: string;

  /** Only entries of this actor: `admin` (the bootstrap ADMIN_TOKEN) or an operator token id. */
  @ApiPropertyOptional({ pattern: `^admin$|${UUID_PATTERN}` })
  @IsOptional()
  @MatchesPattern('invalidActor', new RegExp(`^admin$|${UUID_PATTERN}`), 'must be "admin" or an operator token id (UUID in lower case)')
  actor?: string;

  /** Only this action, e.g. `client.updated`. */
  @ApiPropertyOptional({ pattern: '^[a-z_]+\\.[a-z_]+$' })
  @IsOptional()
  @MatchesPattern('invalidAction', /^[a-z_]{1,40}\.[a-z_]{1,40}$/, 'must be an action such as client.updated')
  action?: string;

  /** Entries at or after this instant (RFC 3339). */
  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptional()
  @IsRfc3339()
  from?: string;

  /** Entries before this instant (RFC 3339). */
  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptional()
  @IsRfc3339()
  to?: string;

  static toQuery(q: ListAuditQueryDto): AuditQuery {
    return { clientId: q.client_id, actor: q.actor, action: q.action, from: q.from, to: q.to, cursor: q.cursor, limit: q.limit };
  }
}

export class AuditActorDto {
  /**
   * `admin`: the bootstrap ADMIN_TOKEN; `operator`: a named operator token; `client`: the client's own people, in the dashboard;
   * `anonymous`: someone not signed in, asking for a sign-in link by e-mail (the link went to the client's confirmed address),
   * or calling the admin API with a credential it refused (`admin.refused`, name `unauthenticated`).
   */
  @ApiProperty({ enum: ['admin', 'operator', 'client', 'anonymous'] })
  type!: 'admin' | 'operator' | 'client' | 'anonymous';

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  operator_token_id!: string | null;

  /** The operator token's name at the time (`ADMIN_TOKEN` for the bootstrap credential, `dashboard` for a client's people, `token <prefix>` for a client's system filing with a token, `sign-in e-mail request` for an anonymous one, `unauthenticated` for a refused credential). */
  @ApiProperty({ example: 'Camille (onboarding)' })
  name!: string;
}

export class AuditTargetDto {
  @ApiProperty({
    enum: ['client', 'token', 'operator_token', 'sign_in_link', 'session', 'declaration', 'reminder', 'request'],
    example: 'client',
  })
  type!: string;

  @ApiProperty({ example: 'exemple-sas' })
  id!: string;
}

@ApiSchema({
  description: 'One write by the operator or in the dashboard, recorded in the same transaction as the write. Never changed or deleted.',
})
export class AuditEventDto {
  static from(e: AuditEvent): AuditEventDto {
    return {
      id: e.id,
      occurred_at: e.occurredAt,
      actor: { type: e.actorType, operator_token_id: e.operatorId, name: e.actorName },
      action: e.action,
      target: { type: e.targetType, id: e.targetId },
      client_id: e.clientId,
      changes: e.changes,
      request_id: e.requestId,
    };
  }

  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** UTC, microseconds. */
  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:00:00.123456Z' })
  occurred_at!: string;

  @ApiProperty({ type: AuditActorDto })
  actor!: AuditActorDto;

  /**
   * `client.created`, `client.updated`, `client.confirmed`, `token.issued`, `token.revoked`,
   * `operator_token.created`, `operator_token.revoked`, `sign_in_link.issued`, `session.started`, `session.ended`,
   * `session.ended_all` (every session of a client, and every unused sign-in link: `changes.reason` is `operator`, `sign_out_everywhere`, `email_changed` or `offboarded`),
   * `sign_in_link.voided_all` (every unused sign-in link of a suspended client),
   * `admin.refused` (an operator's write refused with 409, 412 or 422, or a request to the admin API whose credential was refused, 401;
   * target `request` `<METHOD> <path>`; `changes`: `status`, `code`, and for 422 each problem's `pointer` and `code`; never a value sent or a token).
   */
  @ApiProperty({ example: 'client.updated' })
  action!: string;

  @ApiProperty({ type: AuditTargetDto })
  target!: AuditTargetDto;

  @ApiProperty({ type: String, nullable: true, example: 'exemple-sas' })
  client_id!: string | null;

  /** What changed: the values set (`client.created`, `token.issued`) or `{field: {from, to}}`. Never a secret. */
  @ApiProperty({ type: 'object', additionalProperties: true, example: { company: { from: 'Exemple', to: 'Exemple SAS' } } })
  changes!: Record<string, unknown>;

  /** The `X-Request-Id` of the request that made the change. */
  @ApiProperty({ type: String, nullable: true })
  request_id!: string | null;
}

@ApiSchema({ description: 'One page of the audit trail, newest first (`occurred_at`, then `id`, descending).' })
export class AuditPageDto {
  static from(page: Page<AuditEvent>): AuditPageDto {
    return { data: page.items.map((e) => AuditEventDto.from(e)), has_more: page.hasMore, next_cursor: page.nextCursor };
  }

  @ApiProperty({ type: [AuditEventDto] })
  data!: AuditEventDto[];

  @ApiProperty()
  has_more!: boolean;

  /** Pass as `cursor` to get the next page; null on the last page. */
  @ApiProperty({ type: String, nullable: true })
  next_cursor!: string | null;
}
