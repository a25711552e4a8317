import { timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { hashToken } from '../../common/token-format.js';

/**
 * The operator's credential (`ADMIN_TOKEN`). Both sides are hashed with SHA-256 first, so the
 * constant-time comparison works on equal lengths and leaks neither content nor length.
 */
@Injectable()
export class AdminCredential {
  private readonly expected: Buffer | undefined;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.expected = config.adminToken ? Buffer.from(hashToken(config.adminToken), 'hex') : undefined;
  }

  /** False when no ADMIN_TOKEN is configured: the admin API is then disabled. */
  get enabled(): boolean {
    return this.expected !== undefined;
  }

  matches(presented: string): boolean {
    if (!this.expected) return false;
    return timingSafeEqual(Buffer.from(hashToken(presented), 'hex'), this.expected);
  }
}
