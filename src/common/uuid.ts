/** A UUID in its canonical text form (lower-case hex; PostgreSQL writes them so). */
export const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

const UUID_ANY_CASE = new RegExp(UUID_PATTERN, 'i');

/** Whether an id from a URL can be a UUID (any case, as PostgreSQL reads them): anything else is a 404 without a query. */
export const isUuid = (text: string): boolean => UUID_ANY_CASE.test(text);
