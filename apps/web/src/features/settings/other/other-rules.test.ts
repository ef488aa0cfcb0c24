import { describe, expect, it } from 'vitest';
import { contentKind, isPlainHttpAddress, isUsableLogoAddress } from './other-rules';

describe('contentKind: how the home and about pages show the option', () => {
  it('empty or blank shows the built-in page', () => {
    expect(contentKind('')).toBe('default');
    expect(contentKind('  \n')).toBe('default');
  });

  it('a lone https address is embedded', () => {
    expect(contentKind('https://docs.example.com/welcome')).toBe('embed');
    expect(contentKind('  https://docs.example.com/welcome\n')).toBe('embed');
  });

  it('anything else is Markdown/HTML, including an address inside text or a plain http one', () => {
    expect(contentKind('# Welcome')).toBe('markdown');
    expect(contentKind('<div style="color:red">x</div>')).toBe('markdown');
    expect(contentKind('See https://docs.example.com')).toBe('markdown');
    expect(contentKind('http://docs.example.com')).toBe('markdown');
  });
});

describe('isPlainHttpAddress', () => {
  it('warns about a lone http:// address only', () => {
    expect(isPlainHttpAddress('http://intranet.example.com/home')).toBe(true);
    expect(isPlainHttpAddress('https://docs.example.com')).toBe(false);
    expect(isPlainHttpAddress('see http://x.example.com')).toBe(false);
  });
});

describe('isUsableLogoAddress', () => {
  it('accepts empty (built-in logo), absolute http(s), root paths and data: images', () => {
    for (const address of [
      '',
      'https://cdn.example.com/logo.png',
      'http://cdn.example.com/logo.svg',
      '/logo.svg',
      '/static/brand.png',
      '//cdn.example.com/logo.png',
      'data:image/png;base64,iVBORw0KGgo=',
      'data:image/svg+xml;utf8,<svg xmlns="http://www.w3.org/2000/svg"/>',
    ]) {
      expect(isUsableLogoAddress(address), address).toBe(true);
    }
  });

  it('refuses relative paths, other schemes, spaces and hostless addresses', () => {
    for (const address of [
      'logo.png',
      './logo.png',
      'ftp://x/logo.png',
      'javascript:alert(1)',
      'https://cdn.example.com/my logo.png',
      'https://',
      '///logo.png',
    ]) {
      expect(isUsableLogoAddress(address), address).toBe(false);
    }
  });
});
