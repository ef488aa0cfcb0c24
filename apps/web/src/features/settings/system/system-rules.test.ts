import { describe, expect, it } from 'vitest';
import {
  formatDomainList,
  isValidDomain,
  numberProblem,
  oauthCallbackUrl,
  parseDomainList,
  serverAddressProblem,
  splitTypedDomains,
  sslForcedByPort,
} from './system-rules';

describe('email domain whitelist', () => {
  it('reads the stored comma list, tolerating spaces, full-width commas and duplicates', () => {
    expect(parseDomainList('gmail.com, QQ.com，163.com,,gmail.com')).toEqual(['gmail.com', 'qq.com', '163.com']);
    expect(parseDomainList('')).toEqual([]);
  });

  it('stores the tags comma-separated without spaces, lower case, each once', () => {
    expect(formatDomainList([' Gmail.com ', '@qq.com', 'gmail.com', ''])).toBe('gmail.com,qq.com');
    expect(formatDomainList([])).toBe('');
  });

  it('keeps valid typed domains and names the refused ones', () => {
    expect(splitTypedDomains(['example.org, mail.example.co.uk', 'not a domain', 'xn--p1ai.ru', 'localhost', 'bad_domain.com'])).toEqual({
      valid: ['example.org', 'mail.example.co.uk', 'xn--p1ai.ru'],
      invalid: ['not', 'a', 'domain', 'localhost', 'bad_domain.com'],
    });
    expect(isValidDomain('-start.com')).toBe(false);
    expect(isValidDomain('163.com')).toBe(true);
  });
});

describe('payment needs a saved server address', () => {
  it('passes once an address is stored, whatever is typed', () => {
    expect(serverAddressProblem('https://gw.example.com', '')).toBeNull();
  });

  it('tells a missing address from a typed but unsaved one', () => {
    expect(serverAddressProblem('', '')).toBe('missing');
    expect(serverAddressProblem(undefined, '  ///')).toBe('missing');
    expect(serverAddressProblem('', 'https://gw.example.com/')).toBe('unsaved');
  });
});

describe('OAuth callback addresses', () => {
  it('append the provider path to the stored server address without a double slash', () => {
    expect(oauthCallbackUrl('https://gw.example.com/', 'github')).toBe('https://gw.example.com/oauth/github');
    expect(oauthCallbackUrl('https://gw.example.com', 'linuxdo')).toBe('https://gw.example.com/oauth/linuxdo');
  });

  it('are unknown until a server address is stored', () => {
    expect(oauthCallbackUrl('', 'github')).toBeNull();
    expect(oauthCallbackUrl(undefined, 'github')).toBeNull();
  });
});

describe('number fields', () => {
  it('checks kind and bounds', () => {
    expect(numberProblem('7.3', { min: 0, exclusiveMin: true })).toBeNull();
    expect(numberProblem('0', { min: 0, exclusiveMin: true })).toBe('tooSmall');
    expect(numberProblem('abc', {})).toBe('notNumber');
    expect(numberProblem('', {})).toBe('notNumber');
    expect(numberProblem('1.5', { integer: true })).toBe('notInteger');
    expect(numberProblem('587', { integer: true, min: 1, max: 65535 })).toBeNull();
    expect(numberProblem('70000', { integer: true, min: 1, max: 65535 })).toBe('tooLarge');
    expect(numberProblem('-1', { integer: true, min: 0 })).toBe('tooSmall');
  });

  it('locks SSL on for port 465 only', () => {
    expect(sslForcedByPort('465')).toBe(true);
    expect(sslForcedByPort(' 465 ')).toBe(true);
    expect(sslForcedByPort('587')).toBe(false);
  });
});
