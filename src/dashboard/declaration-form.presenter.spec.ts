import { ExactNumber } from '../common/http/json-body.js';
import { FORM_ROWS, padRows, readDeclarationForm, rowsOfLines } from './declaration-form.presenter.js';

const read = (body: Record<string, string | string[]>) =>
  readDeclarationForm(body, { language: 'fr', units: ['kg', 'uvc'], countStreams: ['EMB'] });

describe('the declaration form, read', () => {
  it('makes one line per filled quantity of a row, kg then UVC, and leaves blank rows out', () => {
    const form = read({
      period: ' 2026-S1 ',
      stream: ['EMB', 'EMB', 'EMB'],
      material: ['Papier-carton', '', 'Verre'],
      quantity_kg: ['3 867,5', '', '4 410'],
      quantity_uvc: ['85 000', '', ''],
      units_sold_EMB: '90 000',
    });
    expect(form.period).toBe('2026-S1');
    expect(form.submitted.lines.map((l) => [l.material, l.unit, String(l.quantity)])).toEqual([
      ['Papier-carton', 'kg', '3867.5'],
      ['Papier-carton', 'uvc', '85000'],
      ['Verre', 'kg', '4410'],
    ]);
    expect(form.submitted.units_sold).toEqual([{ stream: 'EMB', quantity: new ExactNumber('90000') }]);
    // The third line comes from the third row.
    expect(form.rowOf(2)).toBe(3);
  });

  it('puts the service’s problems by their row and unit cell, and says an unreadable number as such', () => {
    const form = read({
      period: '2026-S1',
      stream: ['EMB', 'EMB'],
      material: ['', 'Verre'],
      quantity_kg: ['', '-1'],
      quantity_uvc: ['', '1.200'],
    });
    const errors = form.errors([
      { pointer: '/lines/0/quantity', code: 'quantity_negative', detail: 'negative', params: { field: 'quantity' } },
      { pointer: '/lines/1/quantity', code: 'quantity_not_a_number', detail: 'nan' },
    ]);
    expect(errors.map((e) => [e.line, e.field])).toEqual([
      [1, 'quantity_kg'],
      [1, 'quantity_uvc'],
    ]);
    expect(errors[0]!.where).toBe('Ligne 2, quantité (kg)');
    expect(errors[1]!.message).toContain('1200 ou 1,2');
  });

  it('puts a missing UVC (a material in kg only) at the row’s empty UVC cell', () => {
    const form = read({ period: '2026-S1', stream: ['EMB'], material: ['Verre'], quantity_kg: ['5'], quantity_uvc: [''] });
    const [error] = form.errors([
      { pointer: '/lines/0/unit', code: 'companion_line_missing', detail: 'uvc', params: { field: 'unit', unit: 'kg', requires: 'uvc' } },
    ]);
    expect([error!.line, error!.field, error!.where]).toEqual([0, 'quantity_uvc', 'Ligne 1, quantité (UVC)']);
  });

  it('gives lines back as rows, one per material, padded to the form’s rows', () => {
    const rows = rowsOfLines([
      { stream: 'EMB', material: 'Verre', unit: 'kg', quantity: '1' },
      { stream: 'EMB', material: 'Verre', unit: 'uvc', quantity: '2' },
      { stream: '', material: '', unit: '', quantity: '' },
    ]);
    expect(rows).toEqual([{ stream: 'EMB', material: 'Verre', quantities: { kg: '1', uvc: '2' } }]);
    expect(padRows(rows, 'EMB')).toHaveLength(FORM_ROWS);
    expect(padRows(rows, 'EMB').at(-1)).toEqual({ stream: 'EMB', material: '', quantities: {} });
    expect(
      padRows(
        Array.from({ length: FORM_ROWS }, () => rows[0]!),
        '',
        true,
      ),
    ).toHaveLength(FORM_ROWS + 1);
  });
});
