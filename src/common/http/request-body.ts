import { MIMEType } from 'node:util';
import busboy from 'busboy';
import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type express from 'express';
import type { Observable } from 'rxjs';
import typeis from 'type-is';
import { Problem } from '../problem/problem.js';
import { readRequestBody } from './body-reader.js';
import { parseForm } from './form-body.js';
import { BODY_LIMIT_BYTES, parseJsonBody } from './json-body.js';
import type { CsvCharset } from '../csv/read-csv.js';

export type { FormBody } from './form-body.js';

/** The kinds of request body a route may declare with `@Accepts`. */
export type BodyType = 'json' | 'csv' | 'form' | 'multipart';

/** The media types of each kind (the first is the one named to clients). */
const MEDIA_TYPES: Record<BodyType, string[]> = {
  json: ['application/json', 'application/*+json'],
  csv: ['text/csv'],
  form: ['application/x-www-form-urlencoded'],
  multipart: ['multipart/form-data'],
};

/** Charsets a CSV may declare (absent: detected); JSON and forms are UTF-8 only. */
const CSV_CHARSETS: Record<string, CsvCharset> = {
  'utf-8': 'utf-8',
  utf8: 'utf-8',
  'us-ascii': 'utf-8',
  'windows-1252': 'windows-1252',
  cp1252: 'windows-1252',
  'iso-8859-1': 'windows-1252',
  latin1: 'windows-1252',
};
export type { CsvCharset };

const ACCEPTS_KEY = 'request-body-types';

/** The request bodies a route takes; without it, JSON only. Anything else gets 415 with `Accept-Post`. */
export const Accepts = (...types: BodyType[]) => SetMetadata(ACCEPTS_KEY, types);

/**
 * A CSV body as sent: its bytes and the charset its Content-Type names, if any. The route decodes
 * it, since only the route knows what its rows mean (and so how to point at a wrong cell).
 */
export class CsvBody {
  constructor(
    readonly bytes: Buffer,
    readonly charset: CsvCharset | undefined,
  ) {}
}

/** A file of a multipart form (a browser's upload): its bytes as sent, and what the browser says of it. */
export interface UploadedFile {
  filename: string;
  mimeType: string;
  bytes: Buffer;
}

/** A multipart form: its text fields (the last value of each) and its files by field name. */
export class MultipartBody {
  constructor(
    readonly fields: Record<string, string>,
    readonly files: Record<string, UploadedFile>,
  ) {}
}

/**
 * A multipart form holds at most 20 fields of 16 KiB and one file (21 parts): more is not one of our forms.
 * busboy marks a value cut once it reaches `fieldSize`, and reports `partsLimit` once the parts reach `parts`
 * (`fields` and `files`, when one more arrives): those two are one past the most a form holds.
 */
const MULTIPART_LIMITS = { files: 1, fields: 20, parts: 22, fieldSize: 16 * 1024 + 1, fieldNameSize: 100 };

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** Whether the request says it carries a body (a `Content-Length: 0` does not). */
export function declaresBody(req: express.Request): boolean {
  return typeis.hasBody(req) && req.headers['content-length'] !== '0';
}

/**
 * The one request-body pipeline, a global interceptor after the guards: nothing is read before the
 * request is routed and authenticated (a bad token costs no parsing; a wrong method or path gets its
 * 404/405 whatever its body, and the connection is closed: ProblemFilter). Then 415 for a media type the
 * route does not declare (`@Accepts`) or an unreadable charset; 413 past 1 MiB (Content-Length, read, or
 * inflated past its ratio: readRequestBody); then parsing (parseJsonBody; parseForm, at most
 * MAX_FORM_FIELDS fields). Only methods that carry a body here have it read (a GET's body is ignored).
 */
@Injectable()
export class RequestBodyInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const http = context.switchToHttp();
    const req = http.getRequest<express.Request>();
    if (BODY_METHODS.has(req.method) && typeis.hasBody(req)) {
      const accepted = this.reflector.getAllAndOverride<BodyType[] | undefined>(ACCEPTS_KEY, [
        context.getHandler(),
        context.getClass(),
      ]) ?? ['json'];
      if (!declaresBody(req)) {
        // An empty body: `{}` for JSON as JSON parsers have always given; nothing otherwise.
        req.body = typeis(req, MEDIA_TYPES.json) && accepted.includes('json') ? {} : undefined;
      } else {
        const { type, charset } = negotiate(req, accepted);
        const length = Number(req.headers['content-length']);
        if (length > BODY_LIMIT_BYTES) throw tooLarge();
        const bytes = await readRequestBody(req, { maxBytes: BODY_LIMIT_BYTES, tooLarge }).catch((error: unknown) => {
          // A Content-Encoding the service cannot read is a 415 like any other: it says what the route takes.
          if (error instanceof Problem && error.code === 'unsupported_media_type') {
            throw new Problem(error.code, error.detail, {
              extensions: error.extensions,
              headers: { ...error.headers, 'Accept-Post': acceptPostOf(accepted) },
            });
          }
          throw error;
        });
        req.body =
          type === 'json'
            ? parseJsonBody(bytes)
            : type === 'csv'
              ? new CsvBody(bytes, charset)
              : type === 'form'
                ? parseForm(bytes)
                : await parseMultipart(req, bytes);
      }
    }
    return next.handle();
  }
}

/** The `Accept-Post` of a route: the media types it takes. */
const acceptPostOf = (accepted: BodyType[]) => accepted.map((type) => MEDIA_TYPES[type][0]).join(', ');

/** The kind of the body among those the route accepts, and its charset; else 415. */
function negotiate(req: express.Request, accepted: BodyType[]): { type: BodyType; charset?: CsvCharset } {
  const acceptPost = acceptPostOf(accepted);
  const refuse = (detail: string) => new Problem('unsupported_media_type', detail, { headers: { 'Accept-Post': acceptPost } });
  const contentType = req.headers['content-type'];
  const type = accepted.find((kind) => typeis(req, MEDIA_TYPES[kind]));
  if (type === undefined)
    throw refuse(`Content-Type ${contentType ?? '(none)'} is not accepted here; send ${acceptPost.replace(/, ([^,]*)$/, ' or $1')}.`);
  let charset: string | undefined;
  try {
    charset = new MIMEType(contentType!).params.get('charset')?.toLowerCase();
  } catch {
    throw refuse(`Content-Type ${contentType} cannot be read; send ${acceptPost}.`);
  }
  if (type === 'csv') {
    if (charset !== undefined && !CSV_CHARSETS[charset]) {
      throw refuse(
        `A CSV file is read as UTF-8 or Windows-1252, not charset=${charset}: save it as "CSV UTF-8", or leave the charset out.`,
      );
    }
    return { type, charset: charset === undefined ? undefined : CSV_CHARSETS[charset] };
  }
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw refuse(`${MEDIA_TYPES[type][0]} bodies are read as UTF-8 only, not charset=${charset}: send UTF-8 (or leave the charset out).`);
  }
  return { type };
}

const tooLarge = () =>
  new Problem('payload_too_large', `The request body exceeds the limit of 1 MiB (${BODY_LIMIT_BYTES.toLocaleString('en')} bytes).`);

/** A multipart form already read (at most 1 MiB), parsed by busboy; a malformed one is a 400. */
function parseMultipart(req: express.Request, bytes: Buffer): Promise<MultipartBody> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = Object.create(null) as Record<string, string>;
    const files: Record<string, UploadedFile> = Object.create(null) as Record<string, UploadedFile>;
    const refuse = (detail: string) => reject(new Problem('bad_request', detail));
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: MULTIPART_LIMITS, defParamCharset: 'utf8' });
    } catch (error) {
      return refuse(`The multipart form cannot be read: ${error instanceof Error ? error.message : String(error)}.`);
    }
    parser.on('field', (name: string, value: string, info: busboy.FieldInfo) => {
      // busboy cuts a value or a name past its limit and says so: a cut value is not what was typed.
      if (info.valueTruncated || info.nameTruncated)
        return refuse(`The form field ${JSON.stringify(name.slice(0, 100))} is longer than this form's fields (16 KiB).`);
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => (files[name] = { filename: info.filename ?? '', mimeType: info.mimeType, bytes: Buffer.concat(chunks) }));
    });
    parser.on('partsLimit', () => refuse('The form has more parts than this form has fields.'));
    parser.on('filesLimit', () => refuse('Send one file at a time.'));
    parser.on('fieldsLimit', () => refuse('The form has more fields than this form has.'));
    parser.on('error', (error: Error) => refuse(`The multipart form cannot be read: ${error.message}.`));
    parser.on('close', () => resolve(new MultipartBody(fields, files)));
    parser.end(bytes);
  });
}
