import { ApiProperty } from '@nestjs/swagger';
import type { SessionInfo } from '../sessions.service.js';

export class DashboardSessionDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** When the person signed in (with a sign-in link). */
  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: Date;

  /** The session's last request. */
  @ApiProperty({ type: String, format: 'date-time' })
  last_seen_at!: Date;

  /** When it ends however active (12 hours after sign-in). */
  @ApiProperty({ type: String, format: 'date-time' })
  expires_at!: Date;

  /** When it ends if it stays unused from now (30 minutes after `last_seen_at`, at the latest `expires_at`). */
  @ApiProperty({ type: String, format: 'date-time' })
  idle_expires_at!: Date;

  static from(s: SessionInfo): DashboardSessionDto {
    return { id: s.id, created_at: s.createdAt, last_seen_at: s.lastSeenAt, expires_at: s.expiresAt, idle_expires_at: s.idleExpiresAt };
  }
}
