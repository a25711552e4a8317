/** Totals of one stream, material and unit across the clients' current revisions of a period. */
export interface SummaryTotal {
  stream: string;
  materialCode: string | null;
  /** The submitted text when it names no published category; null otherwise. */
  material: string | null;
  unit: string;
  quantity: string;
  clientCount: number;
  lineCount: number;
}

/** A period's figures across clients, as read in one snapshot: who is confirmed, liable, declared, missing, and the totals. */
export interface PeriodFigures {
  confirmedClients: number;
  liableClients: number;
  declaredClients: number;
  missing: { clientId: string; company: string | null; email: string | null }[];
  totals: SummaryTotal[];
  streamTotals: { stream: string; unit: string; quantity: string }[];
  unitsSold: { stream: string; quantity: string; clientCount: number }[];
}

/** A period's summary: its figures, whether it has ended (only then can a client be missing), stream totals of masses only. */
export type PeriodSummary = PeriodFigures & { period: string; ended: boolean };
