import type { UsageLedgerQuery } from '@switchyard/shared-dto';

import { queryString } from './query-string';

describe('queryString', () => {
  it('encodes the fields that are set, in order, and leaves out unset ones', () => {
    expect(queryString<UsageLedgerQuery>({ limit: 20, cursor: undefined })).toBe('?limit=20');
    expect(queryString<UsageLedgerQuery>({ limit: 20, cursor: '42' })).toBe('?limit=20&cursor=42');
    expect(queryString({ handle: 'a b&c' })).toBe('?handle=a+b%26c');
  });

  it('answers an empty string when nothing is set', () => {
    expect(queryString<UsageLedgerQuery>({})).toBe('');
  });
});
