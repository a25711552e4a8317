/** A JSON Pointer segment (RFC 6901): `~` and `/` escaped. */
export const escapePointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');
