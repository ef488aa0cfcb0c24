import { createHash, createHmac } from 'node:crypto';

/**
 * AWS Signature Version 4 (header form), as specified in "Create a signed AWS API request"
 * (docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html).
 * Written here rather than pulled from the SDK: the relay needs one function, not a client.
 */

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
}

export interface SigV4Input {
  method: string;
  /** Host header value (`host` or `host:port`). */
  host: string;
  /** The path exactly as it goes on the wire (segments already percent-encoded once). */
  path: string;
  /** The raw query string without `?` ('' for none). */
  query?: string;
  /** Headers to sign besides host and x-amz-date (names in any case). */
  headers: Readonly<Record<string, string>>;
  body: string | Buffer;
  service: string;
  region: string;
  credentials: AwsCredentials;
  /** Signing time; default now. */
  date?: Date;
}

export interface SigV4Result {
  /** The headers to send: the input's, plus host, x-amz-date, authorization (and x-amz-security-token). */
  headers: Record<string, string>;
  /** For tests and diagnostics; holds no secret. */
  canonicalRequest: string;
  stringToSign: string;
}

const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 encoding of everything but the unreserved characters A-Z a-z 0-9 - _ . ~ (AWS's UriEncode). */
export const awsUriEncode = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);

/** `20150830T123600Z` */
export const amzDate = (date: Date): string =>
  date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/**
 * Every service but S3 encodes each path segment once more on top of the wire form: a Bedrock
 * model id `…-v2:0` travels as `…-v2%3A0` and is signed as `…-v2%253A0`.
 */
function canonicalUri(path: string): string {
  if (path === '' || path === '/') return '/';
  const segments: string[] = [];
  for (const segment of path.replace(/\/{2,}/g, '/').split('/')) {
    if (segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(awsUriEncode(segment));
  }
  const joined = segments.join('/');
  return joined.startsWith('/') ? joined : `/${joined}`;
}

const decodeQueryPart = (part: string): string => {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return part;
  }
};

function canonicalQuery(query: string): string {
  if (query === '') return '';
  const pairs = query
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const key = equals === -1 ? pair : pair.slice(0, equals);
      const value = equals === -1 ? '' : pair.slice(equals + 1);
      return [awsUriEncode(decodeQueryPart(key)), awsUriEncode(decodeQueryPart(value))] as const;
    });
  pairs.sort(([keyA, valueA], [keyB, valueB]) => (keyA < keyB ? -1 : keyA > keyB ? 1 : valueA < valueB ? -1 : valueA > valueB ? 1 : 0));
  return pairs.map(([key, value]) => `${key}=${value}`).join('&');
}

const trimHeaderValue = (value: string): string => value.trim().replace(/\s+/g, ' ');

/** The key that signs one day's requests for one region and service. */
export function sigV4SigningKey(secretAccessKey: string, day: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, day), region), service), 'aws4_request');
}

export function signSigV4(input: SigV4Input): SigV4Result {
  const timestamp = amzDate(input.date ?? new Date());
  const day = timestamp.slice(0, 8);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers)) headers[name.toLowerCase()] = value;
  headers.host = input.host;
  headers['x-amz-date'] = timestamp;
  if (input.credentials.sessionToken) headers['x-amz-security-token'] = input.credentials.sessionToken;
  delete headers.authorization;

  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const canonicalHeaders = names.map((name) => `${name}:${trimHeaderValue(headers[name] ?? '')}\n`).join('');
  const payloadHash = headers['x-amz-content-sha256'] ?? sha256Hex(input.body);
  const canonicalRequest = [
    input.method.toUpperCase(),
    canonicalUri(input.path),
    canonicalQuery(input.query ?? ''),
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', timestamp, scope, sha256Hex(canonicalRequest)].join('\n');
  const signature = createHmac('sha256', sigV4SigningKey(input.credentials.secretAccessKey, day, input.region, input.service))
    .update(stringToSign, 'utf8')
    .digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { headers, canonicalRequest, stringToSign };
}

/** The hex SHA-256 of a body, for `x-amz-content-sha256`. */
export const awsPayloadHash = sha256Hex;
