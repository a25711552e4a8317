/** How the outbox's sender works (tests shorten the waits). */
export interface MailDelivery {
  /** How often each replica looks for messages that are due (besides the kick after each commit that queues one). */
  pollMs: number;
  /** The wait before the second attempt; it doubles at each attempt after. */
  retryBaseMs: number;
  /** Attempts before a message is given up (`failed`). */
  maxAttempts: number;
  /** Messages claimed at once, and sent at the same time, by one replica. */
  batch: number;
  /** How long a claimed message is left to its replica before another may try it (longer than any one attempt). */
  leaseMs: number;
  /** nodemailer's timeouts: TCP connection, the server's greeting, and silence on the socket once connected. */
  smtp: { connectionMs: number; greetingMs: number; socketMs: number };
  /** One attempt, whole, at most this long. */
  attemptMs: number;
}

/** 6 attempts over about 15 minutes (30 s, 1, 2, 4, 8 min apart). */
export const DEFAULT_MAIL_DELIVERY: MailDelivery = {
  pollMs: 5_000,
  retryBaseMs: 30_000,
  maxAttempts: 6,
  batch: 5,
  leaseMs: 120_000,
  smtp: { connectionMs: 5_000, greetingMs: 5_000, socketMs: 15_000 },
  attemptMs: 60_000,
};

/** Injection token of the MailDelivery in force. */
export const MAIL_DELIVERY = Symbol('MAIL_DELIVERY');
