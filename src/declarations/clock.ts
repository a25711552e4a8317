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

/** The calendar date (`YYYY-MM-DD`) in France at `instant`: periods open at midnight Paris time. */
export function parisDate(instant: Date): string {
  const parts = Object.fromEntries(PARIS_DATE.formatToParts(instant).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day}`;
}
