/**
 * The seeds of test/fuzz.e2e-spec.ts that `npm test` runs, each on a service of its own: a broad run,
 * and every seed that once found a fault (of the service or of the test's oracle), kept so the fault
 * stays fixed. `runs` is the number of requests generated; a found seed needs only the requests up to
 * its failure (fast-check draws request n the same whatever the number of runs).
 *
 * `npm run fuzz` explores random seeds and prints each failing one: fix what it found, then add it here.
 */
export interface FuzzSeed {
  seed: number;
  runs: number;
  /** What the seed found, or why it is here. */
  found: string;
}

export const FUZZ_SEEDS: FuzzSeed[] = [
  { seed: 1_797_630_000, runs: 2_000, found: 'the broad run: 2,000 requests over every documented operation' },
  {
    seed: 959_782_995,
    runs: 219,
    found:
      "request 219, GET /API/V1/ME/OBLIGATIONS with Accept: text/html, got the site's HTML 404: right (the API's paths are " +
      "case-sensitive, so the address is the site's); the oracle allowed only a problem (test/support/contract.ts)",
  },
  {
    seed: 10_222_381,
    runs: 648,
    found:
      'request 648, GET /api/v1/admin/clients/import with a client token, got 403: right (the router takes it for ' +
      'GET /admin/clients/{client_id}, an operator route); the oracle matched the literal path, which only POST has (matchOperation)',
  },
];
