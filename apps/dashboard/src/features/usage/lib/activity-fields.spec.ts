import { activityName, activityTime, toActivityRow, UNKNOWN_NAME } from './activity-fields';

describe('activity field fallbacks (docs/decisions.md#rules-for-clients)', () => {
  it('takes the time from startTime, timestamp, createdAt or endTime, the first present', () => {
    expect(activityTime({ startTime: 'a', timestamp: 'b', createdAt: 'c', endTime: 'd' })).toBe('a');
    expect(activityTime({ timestamp: 'b', createdAt: 'c', endTime: 'd' })).toBe('b');
    expect(activityTime({ createdAt: 'c', endTime: 'd' })).toBe('c');
    expect(activityTime({ endTime: 'd' })).toBe('d');
    expect(activityTime({ startTime: '', endTime: 'd' })).toBe('d');
    expect(activityTime({})).toBeNull();
  });

  it("takes the name from name, apiKeyName, keyName or apiKey, and says 'Unknown' when none is there", () => {
    expect(activityName({ name: 'CI', apiKeyName: 'x' })).toBe('CI');
    expect(activityName({ apiKeyName: 'laptop', keyName: 'y' })).toBe('laptop');
    expect(activityName({ keyName: 'server', apiKey: 'z' })).toBe('server');
    expect(activityName({ apiKey: 'sy-abc…wxyz' })).toBe('sy-abc…wxyz');
    expect(activityName({ name: '  ', apiKeyName: null })).toBe(UNKNOWN_NAME);
    expect(activityName({})).toBe('Unknown');
  });

  it('builds a row, adding the tokens when the total is missing and naming a failure', () => {
    expect(
      toActivityRow(
        {
          id: 'r1',
          timestamp: 't',
          model: 'demo-chat',
          promptTokens: 3,
          completionTokens: 4,
          cost: 0.1,
          status: 'client_closed',
          errorCode: 'client_closed',
        },
        0,
      ),
    ).toEqual({
      id: 'r1',
      time: 't',
      name: 'Unknown',
      model: 'demo-chat',
      totalTokens: 7,
      cost: 0.1,
      problem: 'client_closed',
    });
    expect(
      toActivityRow({ startTime: 's', name: 'CI', model: 'm', totalTokens: 10, cost: 0, status: 'success' }, 4),
    ).toEqual({
      id: 'row-4',
      time: 's',
      name: 'CI',
      model: 'm',
      totalTokens: 10,
      cost: 0,
      problem: null,
    });
  });
});
