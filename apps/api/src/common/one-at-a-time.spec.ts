import { OneAtATime } from './one-at-a-time';

describe('OneAtATime', () => {
  it('never overlaps runs, and a caller arriving mid-run returns only after a run that started after it', async () => {
    const serial = new OneAtATime();
    const log: string[] = [];
    let active = 0;
    const work = (name: string) => async () => {
      active += 1;
      expect(active).toBe(1);
      log.push(`start ${name}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
      log.push(`end ${name}`);
      active -= 1;
    };
    const first = serial.run(work('a'));
    const second = serial.run(work('b')).then(() => log.push('b returned'));
    await Promise.all([first, second]);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'b returned']);
  });

  it('reports a failed run to its own caller only; a caller waiting on it still runs', async () => {
    const serial = new OneAtATime();
    const failed = serial.run(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      throw new Error('boom');
    });
    let ran = false;
    const waiting = serial.run(async () => {
      ran = true;
    });
    await expect(failed).rejects.toThrow('boom');
    await waiting;
    expect(ran).toBe(true);
  });

  it('gives every caller that arrives during a run the same one next run (no herd of waiters)', async () => {
    const serial = new OneAtATime();
    let runs = 0;
    let queued = 0;
    let written = 0;
    const work = async () => {
      runs += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      written += queued;
      queued = 0;
    };
    const first = serial.run(work);
    const waiting = Array.from({ length: 1000 }, () => {
      queued += 1;
      return serial.run(work);
    });
    expect(new Set(waiting).size).toBe(1);
    await Promise.all([first, ...waiting]);
    expect(runs).toBe(2);
    expect(written).toBe(1000);
    // Idle again: the next caller runs at once.
    await serial.run(work);
    expect(runs).toBe(3);
  });
});
