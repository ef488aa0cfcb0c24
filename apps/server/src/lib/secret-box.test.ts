import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateSecretKey, isSealed, parseSecretKey, SecretBox } from './secret-box.js';

describe('SecretBox', () => {
  const box = new SecretBox(generateSecretKey());

  it('seals to enc:v1:… with a fresh IV each time, and opens back to the plaintext', () => {
    const plain = 'sk-proj-ÄÖÜ-密钥-0123456789';
    const first = box.seal(plain);
    const second = box.seal(plain);
    expect(first).toMatch(/^enc:v1:[A-Za-z0-9_-]+$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('0123456789');
    expect(box.open(first)).toBe(plain);
    expect(box.open(second)).toBe(plain);
    expect(isSealed(first)).toBe(true);
  });

  it('keeps the empty string empty, reads a plaintext value as it is, and does not seal twice', () => {
    expect(box.seal('')).toBe('');
    expect(box.open('sk-legacy-plain')).toBe('sk-legacy-plain');
    const sealed = box.seal('x');
    expect(box.sealOnce(sealed)).toBe(sealed);
    expect(box.open(box.sealOnce('y'))).toBe('y');
  });

  it('refuses a value sealed with another key or changed on disk, instead of returning garbage', () => {
    const sealed = box.seal('secret-value');
    expect(() => new SecretBox(generateSecretKey()).open(sealed)).toThrow(/does not open with this key/);
    const body = Buffer.from(sealed.slice('enc:v1:'.length), 'base64url');
    body[body.length - 1] = body[body.length - 1]! ^ 1;
    expect(() => box.open(`enc:v1:${body.toString('base64url')}`)).toThrow(/does not open with this key/);
    expect(() => box.open('enc:v1:AAAA')).toThrow(/truncated/);
  });

  it('takes a 32-byte key as base64 (with or without padding, url-safe too) or hex, nothing else', () => {
    const key = generateSecretKey();
    expect(parseSecretKey(key.toString('base64'))).toEqual(key);
    expect(parseSecretKey(key.toString('base64url'))).toEqual(key);
    expect(parseSecretKey(` ${key.toString('hex')}\n`)).toEqual(key);
    for (const bad of [
      '',
      'short',
      generateSecretKey().toString('base64').slice(0, 40),
      Buffer.alloc(31).toString('hex'),
      randomBytes(48).toString('base64'),
    ]) {
      expect(parseSecretKey(bad), bad).toBeUndefined();
    }
    expect(() => new SecretBox(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});
