/**
 * A validation problem (`FieldError`: code and params) in a person's language: the message, and
 * where it is. The dashboard shows both (in the summary at the top, "Ligne 3, quantité : …"; next
 * to the field, the message alone); never the API's English `detail`, pointer or field key.
 */
import type { FieldError } from '../common/problem/problem.js';
import type { FieldCode, FieldParams, Position } from './field-params.js';
import type { Language } from './language.js';
import { MESSAGES } from './messages/index.js';

type Localizable = Pick<FieldError, 'code' | 'params' | 'row'>;

const isFieldCode = (language: Language, code: string): code is FieldCode => Object.hasOwn(MESSAGES[language].fields, code);

/** What is wrong and how to fix it, with an example; a code this catalogue does not know gets a general sentence. */
export function fieldMessage(language: Language, error: Localizable): string {
  const messages = MESSAGES[language];
  if (!isFieldCode(language, error.code)) return messages.common.unknownProblem;
  const message = messages.fields[error.code] as (p: FieldParams[FieldCode]) => string;
  return message({ ...error.params } as FieldParams[FieldCode]);
}

/** Where the problem is ("Ligne 3, quantité", "Ligne 5 du fichier, colonne quantité"), or undefined for the whole request. */
export function fieldPosition(language: Language, error: Localizable): string | undefined {
  const params = (error.params ?? {}) as Position;
  return MESSAGES[language].common.position({ ...params, ...(error.row !== undefined ? { row: error.row } : {}) });
}
