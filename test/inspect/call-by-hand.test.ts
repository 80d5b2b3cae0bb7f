import { describe, expect, it } from 'vitest';
import { GuideApiError } from '../../src/client/call-errors.js';
import { callByHand, parseRequestBody } from '../../src/inspect/index.js';
import { renderOperationList } from '../../src/report/operation-list.js';

describe('guidectl api, as data', () => {
  it('reads the body as a JSON object, 64-bit ids intact', () => {
    expect(parseRequestBody(undefined)).toEqual({});
    expect(parseRequestBody('  ')).toEqual({});
    expect(String(parseRequestBody('{"group_id": 9007199254740993}')['group_id'])).toBe('9007199254740993');
    expect(() => parseRequestBody('[1]')).toThrow('the request body must be a JSON object');
    expect(() => parseRequestBody('{')).toThrow('the request body is not valid JSON');
  });

  it("gives the operation's error answer as its answer, with the error; other failures are thrown", async () => {
    const refused = new GuideApiError({
      operation: 'getguideacct',
      errcode: 9300002,
      errmsg: 'no such guide',
    });
    const failing = (error: Error) => ({
      call: async () => {
        throw error;
      },
    });
    expect(await callByHand({ call: async () => ({ errcode: 0 }) }, 'getguideacct', {})).toEqual({
      answer: { errcode: 0 },
    });
    expect(await callByHand(failing(refused), 'getguideacct', {})).toEqual({
      answer: { errcode: 9300002, errmsg: 'no such guide' },
      error: refused,
    });
    const token = new GuideApiError({ operation: 'stable_token', errcode: 40001, errmsg: 'bad secret' });
    await expect(callByHand(failing(token), 'getguideacct', {})).rejects.toBe(token);
  });

  it('lists the operations that read and those that write', () => {
    const [reads, writes] = renderOperationList('  ').split('\n');
    expect(reads).toMatch(/^ {2}reads: .*getguideacct/);
    expect(writes).toMatch(/^ {2}writes: .*addguideacct/);
  });
});
