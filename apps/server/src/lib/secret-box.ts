import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Prefix of a sealed value; anything without it is plaintext written before encryption at rest. */
export const SEALED_PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const SECRET_KEY_BYTES = 32;

export class SecretBoxError extends Error {}

export const isSealed = (stored: string): boolean => stored.startsWith(SEALED_PREFIX);

/**
 * Seals and opens the secrets stored in the database (channel keys, secret options, webhook
 * secrets) with AES-256-GCM: a random IV per value, so two equal keys never look alike on disk,
 * and the tag makes a wrong key fail loudly instead of yielding garbage.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== SECRET_KEY_BYTES) throw new SecretBoxError(`a secret key must be ${SECRET_KEY_BYTES} bytes, got ${key.length}`);
    this.key = Buffer.from(key);
  }

  /** `enc:v1:<base64url(iv|tag|ciphertext)>`; '' stays '' (an unset secret is not a secret). */
  seal(plain: string): string {
    if (plain === '') return '';
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The plaintext of a sealed value; a value without the prefix is returned as is. */
  open(stored: string): string {
    if (!isSealed(stored)) return stored;
    const packed = Buffer.from(stored.slice(SEALED_PREFIX.length), 'base64url');
    if (packed.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('a stored secret is truncated');
    const decipher = createDecipheriv('aes-256-gcm', this.key, packed.subarray(0, IV_BYTES));
    decipher.setAuthTag(packed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(packed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('a stored secret does not open with this key (MODELGATE_SECRET_KEY is not the key it was sealed with)');
    }
  }

  /** Seals a value unless it already is (re-sealing would double-wrap it). */
  sealOnce(value: string): string {
    return isSealed(value) ? value : this.seal(value);
  }
}

/** A 32-byte key written as base64 (44 characters with padding, or 43 without) or hex (64 characters). */
export function parseSecretKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return key.length === SECRET_KEY_BYTES ? key : undefined;
  }
  return undefined;
}

export const generateSecretKey = (): Buffer => randomBytes(SECRET_KEY_BYTES);
export const formatSecretKey = (key: Buffer): string => key.toString('base64');
