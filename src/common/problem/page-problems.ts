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
