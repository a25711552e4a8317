import type { Language } from '../language.js';
import { en, type Messages } from './en.js';
import { fr } from './fr.js';

export type { Messages } from './en.js';

/** Every catalogue, by language. */
export const MESSAGES: Readonly<Record<Language, Messages>> = { fr, en };

/** The catalogue of a language. */
export const messagesFor = (language: Language): Messages => MESSAGES[language];
