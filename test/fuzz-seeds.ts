/**
 * The seeds of test/fuzz.e2e-spec.ts: `npm test` runs the broad runs (a seed without `path`: its `runs`
 * requests on a service of its own). Every seed that once found a fault (of the service or of the test's
 * oracle) is kept with the `path` fast-check printed and what it found; CI replays its case as a literal
 * request (the spec's KNOWN_CASES), since a path names a case of the generator as the OpenAPI document
 * was then, and a new route shifts it. `FUZZ_SEED=<seed> FUZZ_PATH=<path>` still replays it by hand.
 *
 * `npm run fuzz` explores random seeds and prints each failing one: fix what it found, then add it here.
 */
export interface FuzzSeed {
  seed: number;
  runs: number;
  /** fast-check's path of the case the seed found (`FUZZ_PATH`): only that case is replayed. */
  path?: string;
  /** What the seed found, or why it is here. */
  found: string;
}

export const FUZZ_SEEDS: FuzzSeed[] = [
  { seed: 1_797_630_000, runs: 2_000, found: 'the broad run: 2,000 requests over every documented operation' },
  {
    seed: 959_782_995,
    runs: 219,
    path: '218:0:2',
    found:
      "request 219, GET /API/V1/ME/OBLIGATIONS with Accept: text/html, got the site's HTML 404: right (the API's paths are " +
      "case-sensitive, so the address is the site's); the oracle allowed only a problem (test/support/contract.ts)",
  },
  {
    seed: 10_222_381,
    runs: 648,
    path: '647:0:0:0:0:0:0:0',
    found:
      'request 648, GET /api/v1/admin/clients/import with a client token, got 403: right (the router takes it for ' +
      'GET /admin/clients/{client_id}, an operator route); the oracle matched the literal path, which only POST has (matchOperation)',
  },
  {
    seed: 1_411_617_363,
    runs: 1_121,
    path: '1120:0:1:1:1:1:1:1:1',
    found:
      'request 1121, GET /api/v1/admin/clients?q=%00, got 500 (PostgreSQL cannot hold a NUL): the service was wrong; a NUL ' +
      'in a query value is now a 422 like one in a body (src/common/validation.ts)',
  },
  {
    seed: 1_991_665_231,
    runs: 1_253,
    path: '1252:0:0:0:0:0:0:2:1:1:5:3:3:1:1:2:2:1:4:1:1:3:3:3:3:3:3:3',
    found:
      'request 1253, POST /api/v1/admin/reminders?dry_run=true {"period":"0000-S1"}, got 500: the service was wrong; the end ' +
      'of a half-year before the year 1000 was an invalid date (its year not written with four digits); periodEndInstant pads it (src/calendar/half-year.ts)',
  },
  {
    seed: 642_659_766,
    runs: 428,
    path: '427',
    found:
      'request 428, POST /api/v1/declarations as a CSV file of 5,000 repeated lines holding a 10,000-character cell: the ' +
      "fuzzer's own CSV writer built a 50 MB text and its copies, and its worker ran out of memory before sending (the " +
      'service was not reached); csvBytes now writes no more rows than the 1.5 MiB bodyBytes sends (test/support/openapi-fuzz.ts)',
  },
];
