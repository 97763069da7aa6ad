import { Logger, type LogLevel } from '@nestjs/common';
import type { Request, Response } from 'express';
import { EventEmitter } from 'node:events';
import { requestContext } from '../http/request-context';
import { AppLogger } from './app-logger';
import { secretRedactor } from './redact';

const API_KEY = `sy-${'A1b2C3d4'.repeat(6)}`;
const ACCESS_TOKEN = 'sya_Qm9vLWJvby1ib28tYm9vLWJvby1ib28tYm9vLWJvbw';

function capture(format: 'json' | 'text', levels: LogLevel[] = ['fatal', 'error', 'warn', 'log']) {
  const lines: Array<{ line: string; level: LogLevel }> = [];
  const logger = new AppLogger({
    format,
    levels,
    apiKeyPrefix: 'sy-',
    write: (line, level) => lines.push({ line, level }),
  });
  return { logger, lines, json: () => lines.map(({ line }) => JSON.parse(line)) };
}

/** Runs `work` inside the request middleware, as Express would for a request with these headers. */
function inRequest(headers: Record<string, string>, work: () => void) {
  const req = { headers, method: 'GET', path: '/v1/models' } as unknown as Request;
  const res = Object.assign(new EventEmitter(), { statusCode: 200, setHeader: jest.fn() }) as unknown as Response;
  requestContext(new Logger('HTTP'), true)(req, res, work);
  return { req, res };
}

describe('AppLogger', () => {
  afterEach(() => Logger.overrideLogger(false));

  it('writes one JSON object per line: ISO time, level, context, msg, and the message fields', () => {
    const { logger, json } = capture('json');
    logger.log('listening on http://127.0.0.1:3000', 'Switchyard');
    logger.warn({ msg: 'slow upstream', provider: 'fake', level: 'hijack' }, 'Gateway');
    logger.error('boom', 'Error: boom\n    at here', 'Errors');
    const [info, warn, error] = json();
    expect(Object.keys(info)).toEqual(['time', 'level', 'context', 'msg']);
    expect(new Date(info.time).toISOString()).toBe(info.time);
    expect(info).toMatchObject({ level: 'info', context: 'Switchyard', msg: 'listening on http://127.0.0.1:3000' });
    expect(warn).toMatchObject({ level: 'warn', context: 'Gateway', msg: 'slow upstream', provider: 'fake' });
    expect(error).toMatchObject({ level: 'error', context: 'Errors', msg: 'boom', stack: 'Error: boom\n    at here' });
  });

  it('prints only the configured levels, errors to the error stream', () => {
    const { logger, lines } = capture('json', ['fatal', 'error', 'warn']);
    logger.log('info', 'X');
    logger.debug('debug', 'X');
    logger.warn('warn', 'X');
    logger.error('error', undefined, 'X');
    expect(lines.map(({ level }) => level)).toEqual(['warn', 'error']);
  });

  it('writes the access line with the request id, and a line given a requestId field carries it', () => {
    const { logger, json } = capture('json');
    Logger.overrideLogger(logger);
    const { res } = inRequest({ 'x-request-id': 'req_given-1' }, () => undefined);
    new Logger('Errors').error({ msg: 'unhandled error: boom', requestId: 'req_given-1' }, 'Error: boom');
    new Logger('Outside').log('not in a request');
    res.emit('finish');
    const [error, outside, access] = json();
    expect(error).toMatchObject({
      context: 'Errors',
      msg: 'unhandled error: boom',
      requestId: 'req_given-1',
      stack: 'Error: boom',
    });
    expect(outside.requestId).toBeUndefined();
    expect(access).toMatchObject({
      context: 'HTTP',
      requestId: 'req_given-1',
      method: 'GET',
      path: '/v1/models',
      status: 200,
    });
    expect(typeof access.durationMs).toBe('number');
  });

  it('logs the access line with the principal kind that authenticated the call', () => {
    const { logger, json } = capture('json');
    Logger.overrideLogger(logger);
    const { req, res } = inRequest({}, () => undefined);
    req.principal = { kind: 'session' } as Request['principal'];
    res.emit('finish');
    expect(json()[0]).toMatchObject({ principal: 'session', requestId: expect.stringMatching(/^req_/) });
  });

  it('masks secrets in any message, field or stack, in both formats', () => {
    for (const format of ['json', 'text'] as const) {
      const { logger, lines } = capture(format);
      logger.log(`key ${API_KEY} and token ${ACCESS_TOKEN}`, 'X');
      logger.warn({ msg: 'header', authorization: `Bearer ${ACCESS_TOKEN}`, key: API_KEY }, 'X');
      logger.error(new Error(`connect postgres://app:hunter2secret@db:5432/x failed for ${API_KEY}`), 'X');
      const all = lines.map(({ line }) => line).join('\n');
      for (const secret of [API_KEY, ACCESS_TOKEN, 'hunter2secret', API_KEY.slice(3)])
        expect(all).not.toContain(secret);
      expect(all).toContain('sy-[redacted]');
      expect(all).toContain('sya_[redacted]');
    }
  });
});

describe('secretRedactor', () => {
  const redact = secretRedactor('sy-');

  it.each([
    [`Authorization: Bearer ${API_KEY}`, 'Authorization: Bearer [redacted]'],
    [`key=${API_KEY}.`, 'key=sy-[redacted].'],
    ['refresh syr_abcdefghijklmnopqrstuvwxyz0123456789_-AB', 'refresh syr_[redacted]'],
    ['session "sys_abcdefghijklmnopqrstuvwxyz"', 'session "sys_[redacted]"'],
    ['internal syi_abcdefghijklmnopqrstuvwxyz', 'internal syi_[redacted]'],
    ['client secret sycs_abcdefghijklmnopqrstuvwxyz', 'client secret sycs_[redacted]'],
    ['card SYGC-7K2M-9QPX-4R8T-ZZ11 redeemed', 'card SYGC-[redacted] redeemed'],
    ['stripe sk_test_51abcdefGHIJ and whsec_abcdefghij', 'stripe sk_test_[redacted] and whsec_[redacted]'],
    ['redis://:p4ssw0rd@cache:6379 down', 'redis://:[redacted]@cache:6379 down'],
    ['Basic dXNlcjpwYXNz', 'Basic [redacted]'],
  ])('masks %s', (input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  it('leaves ordinary text alone', () => {
    for (const text of [
      'GET /api/v1/keys 200 3.1ms',
      'easy-going systems',
      'model sy-demo',
      'sy-short',
      'https://example.com/a',
    ])
      expect(redact(text)).toBe(text);
  });

  it('follows a custom API key prefix', () => {
    expect(secretRedactor('acme-')(`acme-${'x'.repeat(48)}`)).toBe('acme-[redacted]');
  });
});
