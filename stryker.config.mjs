// Mutation testing of the files that hold the rules (npm run mutate; not in CI: it takes a while).
// Run after changing one of them; the score is in docs/testing.md.
// It runs the unit specs only (no database): a mutant only e2e tests would kill counts as a
// survivor here, which is what the unit specs next to these files are for.
//
// Survivors judged equivalent (no input can tell them from the code; measured 2026-11-24, lines as of
// 2026-11-28; see docs/testing.md):
// - bearer-header.ts:72, Regex `(?:\s+(...))` → `(?:\s(...))`: the extra whitespace then lands in the
//   token, which is trimmed.
// - bearer-header.ts:79, OptionalChaining `match?.[2]` → `match[2]`: the scheme was read from `match`
//   just above, so it is not null here.
// - bearer-header.ts:94, `query !== -1` → true: without a `?` the whole path is read as the query, and
//   a path starts with `/`, so no key of it is `access_token`.
// - bearer-header.ts:101, `typeof type === 'string'` → true: Node gives `content-type` as a string or
//   not at all, and the pattern refuses `undefined` read as text (measured again 2026-11-28: 96.8 %).
// - auth.guard.ts:53, `if (!user)` → false and its detail → `''`: not reached; the bearer strategies
//   answer a caller or throw, and a request without a token is refused before passport sees it.
// - idempotency-store.ts:138 (rowsOf), `Array.isArray(result)` → true, `result.length === 2` → true,
//   `A && B` → `A || B` there, `typeof result[1] === 'number'` → true: the answer of `query` is always
//   an array, and a plain answer is an array of row objects, never one whose first element is an
//   array; only TypeORM's `[rows, affected]` passes `Array.isArray(result[0])`.
// - keyset-cursor.ts:46, StringLiteral `'utf8'` → `""`: Buffer.from reads a falsy encoding as UTF-8.
// - keyset-cursor.ts:56, BlockStatement (the catch's `return undefined` removed): the payload stays
//   undefined and the next line refuses it.
// - keyset-cursor.ts:58, `typeof payload !== 'object'` → false: a number, string or boolean payload
//   destructures to `v === undefined` and is refused by the version check.
// - keyset-cursor.ts:61, `typeof t !== 'string'` → false: the timestamp pattern stringifies what it
//   tests; nothing JSON.parse makes but a string or a one-element array reads as a timestamp, and the
//   array then fails isRealInstant (its `slice` is an array, never equal to the string).
// - shared-counters.ts:156, `c.syncing === done` → true: a round trip starts only for counters with
//   none in flight (`!c.syncing` in hit and flush), so `c.syncing` is `done` when it settles.
// - shared-counters.ts:168, the reschedule after a successful background flush removed or made
//   false (BlockStatement, `false`, `every`, `[]`, `() => undefined`, `c => false`; and the call
//   removed, which no spec reaches): a hit
//   counted during the flush schedules its own timer in hit() (the timer is cleared before the flush
//   starts), so no pending hit is left without a timer; the reschedule is a second guard.
// - declaration-validator.ts, the `complete` flag of a line (189 `every` → `some`, 307 `complete = true`,
//   351 the six mutants of `complete && stream !== undefined && unit !== undefined`, 501 and 529 the
//   duplicate and companion rules not clearing it): every way a line becomes incomplete also records a
//   problem, and the lines are only returned when there is none; the flag is a second guard.
// - declaration-validator.ts:350, `stream !== undefined` → true in `group`: a line without a usable
//   stream gets a group `undefined…`, but the requirements are looked up by its (undefined) stream: none.
// - declaration-validator.ts:389, `stream.declarable_until !== null` → true: `period.start > null` is
//   false for a date text.
// - declaration-validator.ts:469, `(value as number) < 0` → `<= 0` and text `''` → other text, on the
//   non-finite branch: the value there is ±Infinity or NaN, never 0, and it is refused as too large
//   before its text is read.
// - declaration-validator.ts:473, `unit === undefined` → false: catalogue.unit(undefined) is undefined.
// - declaration-validator.ts:520 and 526, `line.valid.unit === undefined` → false: a line without a unit
//   adds `undefined` to its group's units, which no requirement names; and it matches no requirement's unit.
// - declaration-validator.ts:527, `?.unit_requirements` → `.unit_requirements`, and `?? []` → `?? [x]`
//   (no coverage): a line with a group has a published stream, whose unit_requirements is always an array.
// - declaration-validator.ts:530, `?.name.en` → `.name.en`: the reference build refuses a `requires`
//   that is not one of the stream's units, themselves published units (reference/validate-reference.ts).
// - declaration-validator.ts:592, `exponent = '0'` → `''`: Number('') is 0; and `?? []` → `?? ['…']`: the
//   destructuring skips element 0, so a one-element array reads as the empty one.
// - declaration-validator.ts:597, `/^0*/` → `/0*/`: `0*` matches at index 0 anyway (possibly empty).
// - declaration-validator.ts:607, `point >= 0` → `> 0`: at point 0 both branches give the digits.
// - token-format.ts:62, `length * 2` → `length / 2` and 64, `if (out.length === length) break` → true:
//   only how many random bytes each round draws; the loop goes on until the token is long enough.
// - token-format.ts:80, the 255-character limit (`false`, `>=`): a fast path; the anchored token
//   pattern refuses anything longer than a token anyway.
// - token-format.ts:104, `'utf8'` → `""`: Hash.update reads a falsy encoding of a string as UTF-8.
// - authentication-cache.ts:83 and 93, `this.generation++` → `--`: a mark is compared with `!==`, so
//   any change of the number makes the marks taken before it stale, whichever way it moves.
// - prebuilt-files.ts:207, `since === undefined` → false: Date.parse(undefined) is NaN, refused on the
//   next line.
// - prebuilt-files.ts:74, `req.url ?? ''` → another text: Node sets `url` on every request a server
//   receives; the default only guards hand-made requests, and names no listed path either way.
// - prebuilt-files.ts:148, `name.toLowerCase()` → `toUpperCase()`: any one case folding merges the same names.
// - prebuilt-files.ts:170-173, the memo of negotiated encodings (`encoding === undefined` → true, the
//   `clear` at 100 entries removed, always or never done, or at > 100, the `set` removed): the answer
//   is a pure function of the header, computed again or remembered; only the memo's size changes.
// - prebuilt-files.ts:185, `name = ''` → another default: String.split always gives one element at least.
// - prebuilt-files.ts:195, `star !== undefined &&` → true: `undefined > 0` is false.
// - reference-catalogue.ts:23, `toLowerCase()` → `toUpperCase()` in foldText: folded texts are only
//   compared with each other, and no two code points (U+0020–U+2FFFF, checked by a loop over them)
//   fold to one text one way and to two texts the other way.
// - reference-catalogue.ts:58, `m.name[l] ?? []` → `?? ["Stryker was here"]`: a material without a name in a
//   language that falls back gets one more lookup key, a text that is no material's name; only a lookup of that
//   very text would tell.
// - reference-catalogue.ts:110, `this.units.get(unit)?.kind` → `.kind`: every unit a stream lists is one of the
//   top-level units (validate-reference.ts refuses another), so the lookup never misses.
// - format.ts:23 and 30, `!format` → true: the memo of Intl formatters; a new one formats the same.
// - format.ts:131, `part.type === 'day'` → true: in the formats of format.ts only the day can be the
//   part "1" (hours and minutes have two digits, the month is a word, the year four digits).
// - read-number.ts:163, `shape.kind !== 'number'` → false: an ambiguous or refused shape has neither
//   `decimal` nor `thousands`, so it adds nothing; the check narrows the type.
import { unitOnJestRunner } from './jest.config.js';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'jest',
  testRunnerNodeArgs: ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning'],
  jest: {
    projectType: 'custom',
    // The unit tier on jest's own runner (SWC's transform, the fixed fast-check seed). Stryker merges this
    // over jest.config.js, whose two projects would each run the unit specs again: they are dropped
    // (`null`: an `undefined` is lost on the way to the test runner processes).
    config: {
      projects: null,
      ...unitOnJestRunner,
      // A mutant's run loads only the spec files holding a test that covers it, quickest first, and stops at
      // the first that kills it.
      testSequencer: '<rootDir>/test/support/covering-files-only.js',
      runner: '<rootDir>/test/support/stop-at-first-kill.js',
      // The build's spec writes the whole site twice with its brotli and gzip variants (about 15 s) and
      // checks that the two folders are byte-identical: a mutant changes both builds alike, and a renderer
      // that fails fails the site's other specs; yet every mutant the renderer reaches ran it.
      testPathIgnorePatterns: ['/node_modules/', '/src/site/build-site\\.spec\\.ts$'],
    },
    enableFindRelatedTests: true,
  },
  // No TypeScript checker: @stryker-mutator/typescript-checker 10.0 stopped on TypeScript 6's
  // diagnostics ("reported without a corresponding file"); SWC strips the types of each mutated file.
  mutate: [
    'src/declarations/declaration-validator.ts',
    'src/calendar/half-year.ts',
    'src/calendar/clock.ts',
    'src/calendar/liability.ts',
    'src/declarations/declaration-cursor.ts',
    'src/declarations/idempotency-store.ts',
    'src/common/token-format.ts',
    'src/auth/auth.guard.ts',
    'src/auth/bearer/bearer-header.ts',
    'src/auth/tokens/authentication-cache.ts',
    'src/rate-limit/shared-counters.ts',
    'src/common/paging/keyset-cursor.ts',
    'src/common/http/prebuilt-files.ts',
    'src/reference/reference-catalogue.ts',
    'src/i18n/read-number.ts',
    'src/i18n/format.ts',
  ],
  coverageAnalysis: 'perTest',
  // A mutant's time limit: twice its tests' time in the dry run, plus the dry run's loading of the files,
  // plus this. The `*.db.spec.ts` start PostgreSQL in process (PGlite) for each run, and a survivor runs
  // every spec covering it: on a busy machine, 30 s more timed out survivors. An endless loop is mostly
  // stopped sooner, by Stryker's count of the mutant's hits.
  timeoutMS: 120_000,
  timeoutFactor: 2,
  ignoreStatic: true,
  concurrency: 2,
  // A jest runner process keeps every run's `vm` modules: without a restart, two runners grew to 4 GB each and
  // slowed to a few mutants a minute after about 1,200 (2026-11-28); restarted every 40 runs, the validator's 852
  // mutants took 4 minutes.
  maxTestRunnerReuse: 40,
  reporters: ['clear-text', 'progress', 'html'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
};
