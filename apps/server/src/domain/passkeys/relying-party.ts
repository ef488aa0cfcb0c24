import type { FastifyRequest } from 'fastify';
import { badRequest } from '../../errors/app-error.js';
import type { OptionService } from '../options/option-service.js';

/** Who the passkeys are for: the relying party's id and name, and the origins a ceremony may come from. */
export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
  userVerification: 'required' | 'preferred' | 'discouraged';
  /** '' lets the browser offer any authenticator. */
  attachment: '' | 'platform' | 'cross-platform';
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `scheme://host[:port]` without a default port, or undefined when it does not parse. */
function originOf(address: string): URL | undefined {
  try {
    const url = new URL(address.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Browsers treat http://localhost as secure; any other http:// origin only with allow_insecure_origin. */
function assertSecure(url: URL, allowInsecure: boolean): void {
  if (url.protocol === 'http:' && !allowInsecure && !LOCAL_HOSTS.has(url.hostname)) {
    throw badRequest(`通行密钥需要 HTTPS：${url.origin} 不是安全来源（可在设置中允许不安全来源）`, 'passkey:insecure_origin');
  }
}

/**
 * The relying party for a request, from the `passkey.*` options (new-api's names): the configured
 * origins, else ServerAddress, else the address this request reached; the id is `passkey.rp_id`,
 * else the host of the first origin.
 */
export function relyingPartyFor(options: OptionService, request: FastifyRequest): RelyingParty {
  const allowInsecure = options.bool('passkey.allow_insecure_origin');
  const configured = options
    .string('passkey.origins')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const candidates = configured.length > 0 ? configured : [options.string('ServerAddress') || `${request.protocol}://${request.host}`];
  const origins: URL[] = [];
  for (const candidate of candidates) {
    const url = originOf(candidate);
    if (!url) throw badRequest(`通行密钥来源地址无效：${candidate}`, 'passkey:invalid_origin');
    assertSecure(url, allowInsecure);
    origins.push(url);
  }
  const rpId = options.string('passkey.rp_id').trim().replace(/:\d+$/, '') || origins[0]!.hostname;
  return {
    id: rpId,
    name: options.string('passkey.rp_display_name').trim() || options.string('SystemName') || 'modelgate',
    origins: origins.map((url) => url.origin),
    userVerification: options.string('passkey.user_verification') as RelyingParty['userVerification'],
    attachment: options.string('passkey.attachment_preference') as RelyingParty['attachment'],
  };
}
