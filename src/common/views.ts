import { join } from 'node:path';
import { Eta } from 'eta';
import { REPO_ROOT } from './repo-root.js';

export const VIEWS_DIR = join(REPO_ROOT, 'views');

/**
 * The one template engine of the service's pages: the site (rendered at build time and at start)
 * and the dashboard use the same views/ folder, layouts and partials. Escaping by default; each
 * template is compiled once, on first use, and kept.
 */
export const views = new Eta({ views: VIEWS_DIR, cache: true, autoEscape: true, autoTrim: [false, 'nl'] });
