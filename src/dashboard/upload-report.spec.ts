import { uploadReport } from './upload-report.js';

const textOf = (href: string) => Buffer.from(href.slice(href.indexOf(',') + 1), 'base64').toString('utf8');

describe('the upload error report', () => {
  it('repeats a formula cell neutralised, after invisible characters too (a zero-width space, a word joiner)', () => {
    const file = "stream,material,unit,quantity\nEMB,\u200b=cmd|' /C calc'!A0,kg,1\nEMB,\u2060+1,kg,2\nEMB,=1+2,kg,3\n";
    const problems = [2, 3, 4].map((row) => ({ pointer: `/rows/${row}/material`, code: 'unknown_material', detail: 'unknown', row }));
    const report = textOf(uploadReport('en', { bytes: Buffer.from(file), name: 'x.csv' }, problems, 3, 1000).href);
    expect(report).toContain("\u200b'=cmd|' /C calc'!A0");
    expect(report).toContain("\u2060'+1");
    expect(report).toContain("'=1+2");
    // No cell of it starts a formula once invisible characters, spaces and quotes are dropped.
    for (const cell of report.split(/[,;\r\n]/)) expect(cell.replace(/^[\p{Zs}\p{Cf}"]*/u, '')).not.toMatch(/^[=+@]/);
  });
});
