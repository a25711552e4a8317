import { ApiProperty } from '@nestjs/swagger';
import type { OperatorSessionListing } from '../operator-sessions.service.js';

/** A live console session (`/operator`): whose it is and when it was used; never its secret. */
export class OperatorSessionDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** The operator token whose named operator signed in. */
  @ApiProperty({ format: 'uuid' })
  operator_token_id!: string;

  @ApiProperty({ example: 'Camille Martin' })
  name!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: Date;

  /** Last request, to the minute (the idle timeout counts from it). */
  @ApiProperty({ type: String, format: 'date-time' })
  last_seen_at!: Date;

  /** When it ends at the latest, used or not. */
  @ApiProperty({ type: String, format: 'date-time' })
  expires_at!: Date;

  static from(row: OperatorSessionListing): OperatorSessionDto {
    return {
      id: row.id,
      operator_token_id: row.operatorId,
      name: row.name,
      created_at: row.createdAt,
      last_seen_at: row.lastSeenAt,
      expires_at: row.expiresAt,
    };
  }
}
