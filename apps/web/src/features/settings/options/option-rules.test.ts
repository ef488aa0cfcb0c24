import { describe, expect, it } from 'vitest';
import { changedOptions, normaliseOptionDraft, saveOptionChanges } from './option-rules';

describe('changedOptions', () => {
  const stored = { SystemName: 'modelgate', ServerAddress: 'https://gw.example.com', RetryTimes: '0' };

  it('lists only keys whose typed value differs from the stored one', () => {
    expect(changedOptions(stored, { SystemName: 'modelgate', RetryTimes: '3' }, ['SystemName', 'RetryTimes'])).toEqual([['RetryTimes', '3']]);
  });

  it('ignores keys outside the card and keys nobody typed into', () => {
    expect(changedOptions(stored, { RetryTimes: '3' }, ['SystemName'])).toEqual([]);
  });

  it('strips trailing slashes from addresses before comparing, so a typed slash alone is no change', () => {
    expect(changedOptions(stored, { ServerAddress: 'https://gw.example.com///' }, ['ServerAddress'])).toEqual([]);
    expect(changedOptions(stored, { ServerAddress: 'https://new.example.com/' }, ['ServerAddress'])).toEqual([['ServerAddress', 'https://new.example.com']]);
    expect(normaliseOptionDraft('SystemName', 'a/')).toBe('a/');
  });

  it('treats a key the server did not send as a write-only secret: changed only when typed', () => {
    expect(changedOptions(stored, { SMTPToken: '' }, ['SMTPToken'])).toEqual([]);
    expect(changedOptions(stored, { SMTPToken: 'hunter2' }, ['SMTPToken'])).toEqual([['SMTPToken', 'hunter2']]);
  });
});

describe('saveOptionChanges', () => {
  it('reports unchanged without calling the server when nothing changed', async () => {
    let calls = 0;
    const report = await saveOptionChanges([], async () => {
      calls += 1;
    });
    expect(report.outcome).toBe('unchanged');
    expect(calls).toBe(0);
  });

  it('sends one call per key and reports saved, partial or failed', async () => {
    const sent: string[] = [];
    const put = async (key: string) => {
      sent.push(key);
      if (key.startsWith('Bad')) throw new Error(`${key} refused`);
    };
    expect(
      (
        await saveOptionChanges(
          [
            ['A', '1'],
            ['B', '2'],
          ],
          put,
        )
      ).outcome,
    ).toBe('saved');
    expect(sent).toEqual(['A', 'B']);

    const partial = await saveOptionChanges(
      [
        ['A', '1'],
        ['BadX', '2'],
      ],
      put,
    );
    expect(partial).toEqual({ outcome: 'partial', saved: ['A'], failed: [{ key: 'BadX', message: 'BadX refused' }] });

    expect(
      (
        await saveOptionChanges(
          [
            ['BadX', '1'],
            ['BadY', '2'],
          ],
          put,
        )
      ).outcome,
    ).toBe('failed');
  });
});
