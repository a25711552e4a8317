import { Injectable } from '@nestjs/common';

/** The time source of the calendar's rules, injected so that tests can set "today" exactly. */
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

const PARIS_HOUR = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', hour: 'numeric', hourCycle: 'h23' });

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

/** The instant a date (`YYYY-MM-DD`) starts in France. */
export function parisMidnight(date: string): Date {
  const utc = Date.parse(`${date}T00:00:00Z`);
  return new Date(utc - Number(PARIS_HOUR.format(new Date(utc))) * 3_600_000);
}
