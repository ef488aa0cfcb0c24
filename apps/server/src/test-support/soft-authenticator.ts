import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/**
 * A software WebAuthn authenticator for tests: an ES256 (P-256) key per credential made with
 * node:crypto, attestation "none", discoverable credentials. It builds what a browser hands the
 * page (clientDataJSON, authenticatorData, the CBOR attestationObject, signatures), so the
 * server's real ceremonies run end to end without a browser.
 */

type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor> | { [key: string]: Cbor };

/** The few CBOR shapes an attestation needs: integers, byte and text strings, arrays, maps. */
function cbor(value: Cbor): Buffer {
  const head = (major: number, length: number): Buffer => {
    if (length < 24) return Buffer.from([(major << 5) | length]);
    if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
    if (length < 0x10000) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
    const buffer = Buffer.alloc(5);
    buffer[0] = (major << 5) | 26;
    buffer.writeUInt32BE(length, 1);
    return buffer;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([key, entry]) => [cbor(key), cbor(entry)])]);
}

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;

export interface SoftCredential {
  id: string;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  counter: number;
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string };
}

interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

export interface CeremonyOverrides {
  /** The page origin the browser would report (default: the authenticator's origin). */
  origin?: string;
  /** Sign with this counter instead of the next one (a replayed or cloned authenticator). */
  counter?: number;
  /** Which credential answers (default: the first one for the relying party that is allowed). */
  credentialId?: string;
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];

  constructor(
    readonly origin: string,
    private readonly flags = { userVerified: true, backedUp: false },
  ) {}

  private flagsByte(extra: number): number {
    return FLAG_UP | (this.flags.userVerified ? FLAG_UV : 0) | (this.flags.backedUp ? FLAG_BE | FLAG_BS : 0) | extra;
  }

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** What `navigator.credentials.create` answers for `publicKey` options (RegistrationResponseJSON). */
  register(options: CreationOptions, overrides: CeremonyOverrides = {}) {
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const credentialId = randomBytes(32);
    const coseKey = new Map<Cbor, Cbor>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
    const counter = overrides.counter ?? 0;
    const counterBytes = Buffer.alloc(4);
    counterBytes.writeUInt32BE(counter);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credentialId.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([this.flagsByte(FLAG_AT)]),
      counterBytes,
      Buffer.alloc(16),
      idLength,
      credentialId,
      cbor(coseKey),
    ]);
    const attestationObject = cbor({ fmt: 'none', attStmt: {}, authData });
    const credential: SoftCredential = { id: b64url(credentialId), rpId, userHandle: options.user.id, privateKey, counter };
    this.credentials.push(credential);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key' as const,
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge, overrides.origin ?? this.origin)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
    };
  }

  /** What `navigator.credentials.get` answers for `publicKey` options (AuthenticationResponseJSON). */
  assert(options: RequestOptions, overrides: CeremonyOverrides = {}) {
    const rpId = options.rpId ?? new URL(this.origin).hostname;
    const allowed = options.allowCredentials?.map((entry) => entry.id);
    const credential = this.credentials.find(
      (candidate) =>
        candidate.rpId === rpId &&
        (overrides.credentialId ? candidate.id === overrides.credentialId : allowed === undefined || allowed.length === 0 || allowed.includes(candidate.id)),
    );
    if (!credential) throw new Error(`the soft authenticator holds no credential for ${rpId}`);
    const counter = overrides.counter ?? (credential.counter += 1);
    const counterBytes = Buffer.alloc(4);
    counterBytes.writeUInt32BE(counter);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([this.flagsByte(0)]), counterBytes]);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, overrides.origin ?? this.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key' as const,
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
    };
  }
}
