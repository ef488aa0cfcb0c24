import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { OptionService } from '../options/option-service.js';
import { relyingPartyFor } from './relying-party.js';

/** The options relyingPartyFor reads, new-api's defaults unless given. */
function optionsOf(values: Record<string, string> = {}): OptionService {
  const all: Record<string, string> = {
    'passkey.allow_insecure_origin': 'false',
    'passkey.origins': '',
    'passkey.rp_id': '',
    'passkey.rp_display_name': '',
    'passkey.user_verification': 'preferred',
    'passkey.attachment_preference': '',
    ServerAddress: '',
    SystemName: 'modelgate',
    ...values,
  };
  return { bool: (key: string) => all[key] === 'true', string: (key: string) => all[key] ?? '' } as unknown as OptionService;
}
const requestAt = (protocol: string, host: string) => ({ protocol, host }) as FastifyRequest;

describe('the relying party', () => {
  it('is the address the console was reached at when nothing is configured (a default port dropped)', () => {
    expect(relyingPartyFor(optionsOf(), requestAt('https', 'gate.example.com:443'))).toMatchObject({
      id: 'gate.example.com',
      name: 'modelgate',
      origins: ['https://gate.example.com'],
    });
    expect(relyingPartyFor(optionsOf(), requestAt('http', 'localhost:3000'))).toMatchObject({ id: 'localhost', origins: ['http://localhost:3000'] });
  });

  it('follows ServerAddress, then the configured origins and rp id over it', () => {
    expect(relyingPartyFor(optionsOf({ ServerAddress: 'https://api.example.com/' }), requestAt('http', 'internal:3000'))).toMatchObject({
      id: 'api.example.com',
      origins: ['https://api.example.com'],
    });
    const party = relyingPartyFor(
      optionsOf({ 'passkey.origins': 'https://a.example.com, https://b.example.com', 'passkey.rp_id': 'example.com:8443', 'passkey.rp_display_name': 'Gate' }),
      requestAt('http', 'internal:3000'),
    );
    expect(party).toMatchObject({ id: 'example.com', name: 'Gate', origins: ['https://a.example.com', 'https://b.example.com'] });
  });

  it('refuses a plain-http origin other than localhost unless insecure origins are allowed', () => {
    expect(() => relyingPartyFor(optionsOf(), requestAt('http', 'gate.example.com'))).toThrow(/通行密钥需要 HTTPS：http:\/\/gate.example.com/);
    expect(() => relyingPartyFor(optionsOf({ 'passkey.origins': 'http://10.0.0.5:3000' }), requestAt('https', 'x'))).toThrow(/不是安全来源/);
    expect(relyingPartyFor(optionsOf({ 'passkey.allow_insecure_origin': 'true' }), requestAt('http', '10.0.0.5:3000')).origins).toEqual([
      'http://10.0.0.5:3000',
    ]);
    expect(() => relyingPartyFor(optionsOf({ 'passkey.origins': 'not a url' }), requestAt('https', 'x'))).toThrow(/来源地址无效：not a url/);
  });
});
