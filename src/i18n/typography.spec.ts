import { fr, frenchTypography } from './typography.js';

describe('French typography', () => {
  it('sets apostrophes, and the spaces before : ; ! ? and inside « »', () => {
    expect(frenchTypography("L'unité : kg ; d'accord ! Vraiment ? « Verre »")).toBe(
      'L’unité\u00a0: kg\u202f; d’accord\u202f! Vraiment\u202f? «\u00a0Verre\u00a0»',
    );
  });

  it('replaces a space already there, of any kind, and adds none where there was none', () => {
    expect(frenchTypography('a\u00a0: b\u202f: c \u00a0; «\u202fx\u00a0\u00a0»')).toBe('a\u00a0: b\u00a0: c\u202f; «\u00a0x\u00a0»');
    expect(frenchTypography('11:05, https://exemple.fr/?a=1, flux;matériau')).toBe('11:05, https://exemple.fr/?a=1, flux;matériau');
  });

  it('as a template tag, sets the words and leaves the values as they are', () => {
    const material = "d'or : « x » ; !";
    expect(fr`Le matériau « ${material} » n'est pas lu : ${1} ${'?'}`).toBe(
      `Le matériau «\u00a0${material}\u00a0» n’est pas lu\u00a0: 1 ?`,
    );
    expect(fr`Sans valeur : rien`).toBe('Sans valeur\u00a0: rien');
  });
});
