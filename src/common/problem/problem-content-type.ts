export const PROBLEM_CONTENT_TYPE_BASE = 'application/problem+json';
export const PROBLEM_CONTENT_TYPE = `${PROBLEM_CONTENT_TYPE_BASE}; charset=utf-8`;
