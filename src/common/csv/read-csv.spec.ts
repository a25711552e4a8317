import { NOT_TEXT } from './read-csv.js';

describe('NOT_TEXT', () => {
  it('is every control character (\\p{Cc}) but tab, CR and LF', () => {
    for (let code = 0; code <= 0xffff; code++) {
      const char = String.fromCharCode(code);
      if (NOT_TEXT.test(char) !== (/\p{Cc}/u.test(char) && !'\t\r\n'.includes(char))) throw new Error(`U+${code.toString(16)}`);
    }
  });
});
