import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** RFC 9457 problem details, as every error response of the API carries them. */
export class ProblemDto {
  /** URI identifying the problem type. */
  @ApiProperty({ format: 'uri', example: 'http://localhost:3000/problems/not-found' })
  type!: string;

  /** Short summary of the problem type; stable per type. */
  @ApiProperty({ example: 'Not found' })
  title!: string;

  /** The HTTP status code of this response. */
  @ApiProperty({ type: 'integer', minimum: 400, maximum: 599, example: 404 })
  status!: number;

  /** What went wrong in this occurrence, and how to fix it. */
  @ApiProperty({ example: 'Declaration was not found.' })
  detail!: string;

  /** This occurrence: `urn:request:<X-Request-Id>`. */
  @ApiProperty({ example: 'urn:request:5f0c6a43-4f39-4a5b-a8c7-0a7e7d5f1b61' })
  instance!: string;

  /** Stable machine-readable code of the problem type. */
  @ApiProperty({ example: 'not_found' })
  code!: string;
}

/** A 503 of the readiness probe: the problem, and the status of each dependency. */
export class ReadinessProblemDto extends ProblemDto {
  @ApiProperty({ type: 'object', additionalProperties: true, example: { database: { status: 'down' } } })
  checks!: Record<string, unknown>;
}

export class FieldErrorDto {
  /** JSON Pointer into the request body (`/query/<name>` for a query parameter; `/rows/<row>/<column>` into a CSV body). */
  @ApiProperty({ example: '/lines/0/quantity' })
  pointer!: string;

  /** What is wrong with this value. */
  @ApiProperty({ example: 'must not be negative' })
  detail!: string;

  /** Stable machine code of this problem. */
  @ApiProperty({ example: 'min' })
  code!: string;

  /** For a CSV body: the row of the file, numbered as a spreadsheet shows it (the header is row 1). */
  @ApiPropertyOptional({ type: 'integer', minimum: 1, example: 12 })
  row?: number;
}

/** A 422: every problem of the request at once. */
export class ValidationProblemDto extends ProblemDto {
  /** Up to 100 problems (each `detail` at most 300 characters); past that, a last entry with `code: more_errors` says how many more there are. */
  @ApiProperty({ type: [FieldErrorDto], maxItems: 101 })
  errors!: FieldErrorDto[];
}
