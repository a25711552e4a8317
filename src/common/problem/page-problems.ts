import type { Request, Response } from 'express';
import type { Problem } from './problem.js';

/**
 * Where problems are answered as pages rather than problem+json: the dashboard provides it (its
 * addresses, rendered with its look). The ProblemFilter asks it first for every problem.
 */
export interface PageProblems {
  handles(req: Request): boolean;
  render(req: Request, res: Response, problem: Problem, instance: string): void;
}

export const PAGE_PROBLEMS = Symbol('PAGE_PROBLEMS');

/**
 * The public site's answer to a path that does not exist, for a person (a browser asking for
 * HTML): a page in the language of the path instead of problem+json. The site provides it; the
 * ProblemFilter asks it for `not_found` problems the dashboard does not handle.
 */
export const SITE_NOT_FOUND = Symbol('SITE_NOT_FOUND');
