import { Cancel } from './cancel';

describe('Cancel', () => {
  it('runs each listener once, on the first abort only, and not the ones removed', () => {
    const cancel = new Cancel();
    const ran: string[] = [];
    const kept = () => ran.push('kept');
    const removed = () => ran.push('removed');
    cancel.addEventListener('abort', kept);
    cancel.addEventListener('abort', removed);
    cancel.removeEventListener('abort', removed);
    expect(cancel.aborted).toBe(false);
    cancel.abort(new Error('gone'));
    cancel.abort(new Error('again'));
    expect(ran).toEqual(['kept']);
    expect(cancel.aborted).toBe(true);
    expect((cancel.reason as Error).message).toBe('gone');
  });

  it('gives a real AbortSignal that follows it, made before or after the abort', () => {
    const before = new Cancel();
    const signal = before.abortSignal;
    expect(signal.aborted).toBe(false);
    before.abort('left');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('left');

    const after = new Cancel();
    after.abort('cut');
    expect(after.abortSignal.aborted).toBe(true);
    expect(after.abortSignal.reason).toBe('cut');
  });
});
