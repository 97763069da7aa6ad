import { buildCsv, csvField } from './csv';

describe('csvField', () => {
  it('leaves plain text and numbers as they are', () => {
    expect(csvField('demo-chat')).toBe('demo-chat');
    expect(csvField(0.000014)).toBe('0.000014');
    expect(csvField(-3)).toBe('-3');
  });

  it('quotes a field with a comma, quote or line break and doubles its quotes', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
  });

  it('defuses text a spreadsheet would run as a formula', () => {
    expect(csvField('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('-key')).toBe("'-key");
    expect(csvField('@me')).toBe("'@me");
  });

  it('writes nothing for missing values and non-finite numbers', () => {
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
    expect(csvField(Number.NaN)).toBe('');
  });
});

describe('buildCsv', () => {
  it('writes a header and one CRLF-terminated line per row', () => {
    const csv = buildCsv(
      [
        { header: 'Model', value: (row: { model: string; cost: number }) => row.model },
        { header: 'Cost (USD)', value: (row) => row.cost },
      ],
      [
        { model: 'demo-chat', cost: 0.5 },
        { model: 'a,b', cost: 0 },
      ],
    );
    expect(csv).toBe('Model,Cost (USD)\r\ndemo-chat,0.5\r\n"a,b",0\r\n');
  });

  it('writes only the header when there are no rows', () => {
    expect(buildCsv([{ header: 'Day', value: () => '' }], [])).toBe('Day\r\n');
  });
});
