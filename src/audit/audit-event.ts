/** An entry of the audit trail, as recorded: who, what, and the request it came with. */
export interface AuditEvent {
  id: string;
  occurredAt: string;
  actorType: 'admin' | 'operator' | 'client' | 'anonymous';
  operatorId: string | null;
  actorName: string;
  action: string;
  targetType: string;
  targetId: string;
  clientId: string | null;
  changes: Record<string, unknown>;
  requestId: string | null;
}

/** What the operator asks of the trail: filters (`actor`: an operator token's id, or `admin` for ADMIN_TOKEN), and a page. */
export interface AuditQuery {
  clientId?: string;
  actor?: string;
  action?: string;
  /** Inclusive, an instant as text. */
  from?: string;
  /** Exclusive, an instant as text. */
  to?: string;
  cursor?: string;
  limit?: number;
}
