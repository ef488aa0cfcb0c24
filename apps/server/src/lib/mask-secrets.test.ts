import { describe, expect, it } from 'vitest';
import { channelSecrets, maskKey, maskSecrets } from './mask-secrets.js';

describe('maskKey', () => {
  it('keeps a known prefix and two characters each side', () => {
    expect(maskKey('sk-abcdefghijklmnopqrstuvwxyz')).toBe('sk-ab****yz');
    expect(maskKey('sk-ant-api03-abcdefghijklmnop')).toBe('sk-ant-ap****op');
    expect(maskKey('AIzaSyA1234567890abcdefgh')).toBe('AIzaSy****gh');
    expect(maskKey('0123456789abcdef0123456789abcdef')).toBe('01****ef');
  });

  it('hides short values entirely', () => {
    expect(maskKey('sk-short12')).toBe('sk-****');
    expect(maskKey('abcdefgh')).toBe('****');
  });
});

describe('maskSecrets', () => {
  const azureKey = '0123456789abcdef0123456789abcdef';
  const openAiKey = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWx';

  it('masks every line of a multi-key channel wherever it appears', () => {
    const keys = channelSecrets(`${openAiKey}\n\n  ${azureKey}  \n`);
    expect(keys).toEqual([openAiKey, azureKey]);
    const text = `Incorrect API key provided: ${azureKey}. Also ${openAiKey} and again ${azureKey}`;
    const masked = maskSecrets(text, keys);
    expect(masked).not.toContain(azureKey);
    expect(masked).not.toContain(openAiKey);
    expect(masked).toContain('Incorrect API key provided: 01****ef.');
  });

  it('masks sk- keys, Bearer credentials and key= parameters it was not told about', () => {
    const masked = maskSecrets('key sk-abcdefghijklmnopqrstuvwxyz, Bearer abc.def-ghijklmnop, url ?key=AIzaSyA1234567890abcdefgh&x=1');
    expect(masked).toBe('key sk-ab****yz, Bearer ab****op, url ?key=AIzaSy****gh&x=1');
  });

  it('gives the same text when masked twice', () => {
    const once = maskSecrets(`Bearer ${azureKey} ?api_key=${azureKey} ${openAiKey}`, [azureKey]);
    expect(maskSecrets(once, [azureKey])).toBe(once);
  });

  it('does not blot out short fragments of a key field', () => {
    expect(maskSecrets('model {gpt} not found', ['{', 'gpt'])).toBe('model {gpt} not found');
  });
});
