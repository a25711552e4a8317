import { plainToInstance } from 'class-transformer';
import { foldSpelling, PublishedSpelling, publishedSpelling } from './spelling.js';

describe('published spellings', () => {
  const organisms = ['Citeo', 'Adelphe', 'Léko'];

  it('matches without regard to case and accents, and answers the published spelling', () => {
    for (const sent of ['citeo', 'CITEO', ' Citeo ']) expect(publishedSpelling(sent, organisms)).toBe('Citeo');
    for (const sent of ['leko', 'LEKO', 'léko', 'LÉKO', 'Le\u0301ko']) expect(publishedSpelling(sent, organisms)).toBe('Léko');
    expect(publishedSpelling('Citéo SAS', organisms)).toBeUndefined();
    expect(foldSpelling('Éco-DDS')).toBe('eco-dds');
  });

  it('as a class-transformer rule: values and array items spelled as published, anything else left as sent', () => {
    class Body {
      @PublishedSpelling(() => organisms)
      name?: unknown;

      @PublishedSpelling(() => ['EMB', 'CHR'])
      streams?: unknown;
    }
    expect(plainToInstance(Body, { name: 'adelphe', streams: ['emb', 'Chr', 'XYZ', 3] })).toEqual({
      name: 'Adelphe',
      streams: ['EMB', 'CHR', 'XYZ', 3],
    });
    expect(plainToInstance(Body, { name: 'Nobody', streams: null })).toEqual({ name: 'Nobody', streams: null });
  });
});
