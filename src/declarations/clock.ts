import { Injectable } from '@nestjs/common';

/** The time source of the declaration rules, injected so that tests can set "today" exactly. */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}

const PARIS_DATE = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Europe/Paris',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

let last = { minute: Number.NaN, date: '' };

/**
 * The calendar date (`YYYY-MM-DD`) in France at `instant`: periods open at midnight Paris time.
 * Remembered for the UTC minute (France's offset is whole hours, so the date cannot change within one).
 */
export function parisDate(instant: Date): string {
  const minute = Math.floor(instant.getTime() / 60_000);
  if (minute !== last.minute) {
    const parts = Object.fromEntries(PARIS_DATE.formatToParts(instant).map((p) => [p.type, p.value]));
    last = { minute, date: `${parts.year}-${parts.month}-${parts.day}` };
  }
  return last.date;
}
