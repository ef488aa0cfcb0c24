import aws4 from 'aws4';
import { describe, expect, it } from 'vitest';
import { awsPayloadHash, signSigV4, sigV4SigningKey, type SigV4Input } from './aws-sigv4.js';

/**
 * AWS's published SigV4 test suite (docs.aws.amazon.com/general/latest/gr/signature-v4-test-suite.html,
 * the vectors the AWS SDKs test against): credentials AKIDEXAMPLE, 2015-08-30T12:36:00Z, us-east-1,
 * service "service".
 */
const SUITE_CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const SUITE_DATE = new Date('2015-08-30T12:36:00Z');
const SCOPE = 'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request';

interface SuiteCase {
  name: string;
  method: string;
  path: string;
  query?: string;
  headers?: Record<string, string>;
  body?: string;
  signedHeaders: string;
  signature: string;
}

const SUITE: SuiteCase[] = [
  {
    name: 'get-vanilla',
    method: 'GET',
    path: '/',
    signedHeaders: 'host;x-amz-date',
    signature: '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
  },
  {
    name: 'get-vanilla-query-order-key-case',
    method: 'GET',
    path: '/',
    query: 'Param2=value2&Param1=value1',
    signedHeaders: 'host;x-amz-date',
    signature: 'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500',
  },
  {
    name: 'get-vanilla-query-unreserved',
    method: 'GET',
    path: '/',
    query: '-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
    signedHeaders: 'host;x-amz-date',
    signature: '9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197',
  },
  {
    name: 'get-utf8',
    method: 'GET',
    path: '/ሴ',
    signedHeaders: 'host;x-amz-date',
    signature: '8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85',
  },
  {
    name: 'get-unreserved',
    method: 'GET',
    path: '/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
    signedHeaders: 'host;x-amz-date',
    signature: '07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f',
  },
  {
    name: 'get-header-value-trim',
    method: 'GET',
    path: '/',
    headers: { 'My-Header1': ' value1', 'My-Header2': ' "a   b   c"' },
    signedHeaders: 'host;my-header1;my-header2;x-amz-date',
    signature: 'acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736',
  },
  {
    name: 'post-vanilla',
    method: 'POST',
    path: '/',
    signedHeaders: 'host;x-amz-date',
    signature: '5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b',
  },
  {
    name: 'post-vanilla-query',
    method: 'POST',
    path: '/',
    query: 'Param1=value1',
    signedHeaders: 'host;x-amz-date',
    signature: '28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11',
  },
  {
    name: 'post-x-www-form-urlencoded',
    method: 'POST',
    path: '/',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'Param1=value1',
    signedHeaders: 'content-type;host;x-amz-date',
    signature: 'ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a',
  },
];

describe('SigV4 against AWS’s test suite', () => {
  for (const vector of SUITE) {
    it(vector.name, () => {
      const signed = signSigV4({
        method: vector.method,
        host: 'example.amazonaws.com',
        path: vector.path,
        query: vector.query ?? '',
        headers: vector.headers ?? {},
        body: vector.body ?? '',
        service: 'service',
        region: 'us-east-1',
        credentials: SUITE_CREDENTIALS,
        date: SUITE_DATE,
      });
      expect(signed.headers.authorization).toBe(`${SCOPE}, SignedHeaders=${vector.signedHeaders}, Signature=${vector.signature}`);
      expect(signed.headers['x-amz-date']).toBe('20150830T123600Z');
    });
  }

  it('the IAM ListUsers example of the signing guide: its signing key and signature', () => {
    // docs.aws.amazon.com/general/latest/gr/sigv4-calculate-signature.html (GET ?Action=ListUsers&Version=2010-05-08)
    expect(sigV4SigningKey(SUITE_CREDENTIALS.secretAccessKey, '20150830', 'us-east-1', 'iam').toString('hex')).toBe(
      'c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9',
    );
    const signed = signSigV4({
      method: 'GET',
      host: 'iam.amazonaws.com',
      path: '/',
      query: 'Action=ListUsers&Version=2010-05-08',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body: '',
      service: 'iam',
      region: 'us-east-1',
      credentials: SUITE_CREDENTIALS,
      date: SUITE_DATE,
    });
    expect(signed.headers.authorization).toContain('Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7');
  });
});

describe('SigV4 agrees with the aws4 package on Bedrock-shaped requests', () => {
  const credentials = { accessKeyId: 'AKIAEXAMPLE123', secretAccessKey: 'example/Secret+Key/123456789012345678901' };
  const body = JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: [{ role: 'user', content: 'héllo ✓' }] });
  const cases: { name: string; input: Omit<SigV4Input, 'credentials' | 'date'> }[] = [
    {
      name: 'invoke with a model id holding a colon',
      input: {
        method: 'POST',
        host: 'bedrock-runtime.us-east-1.amazonaws.com',
        path: '/model/anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-amz-content-sha256': awsPayloadHash(body) },
        body,
        service: 'bedrock',
        region: 'us-east-1',
      },
    },
    {
      name: 'streamed invoke of a cross-region profile',
      input: {
        method: 'POST',
        host: 'bedrock-runtime.eu-west-1.amazonaws.com',
        path: '/model/eu.anthropic.claude-sonnet-4-20250514-v1%3A0/invoke-with-response-stream',
        headers: { 'content-type': 'application/json', accept: 'application/vnd.amazon.eventstream' },
        body,
        service: 'bedrock',
        region: 'eu-west-1',
      },
    },
    {
      name: 'model list with a query',
      input: {
        method: 'GET',
        host: 'bedrock.ap-northeast-1.amazonaws.com',
        path: '/foundation-models',
        query: 'byProvider=anthropic&byOutputModality=TEXT',
        headers: { accept: 'application/json' },
        body: '',
        service: 'bedrock',
        region: 'ap-northeast-1',
      },
    },
    {
      name: 'a local host with a port and a session token',
      input: {
        method: 'POST',
        host: '127.0.0.1:8123',
        path: '/model/us.anthropic.claude-3-7-sonnet-20250219-v1%3A0/invoke',
        headers: { 'content-type': 'application/json' },
        body: '{}',
        service: 'bedrock',
        region: 'us-west-2',
      },
    },
  ];
  for (const { name, input } of cases) {
    it(name, () => {
      const date = new Date('2025-03-04T05:06:07Z');
      const sessionToken = name.includes('session') ? 'FwoGZXIvYXdzEXAMPLETOKEN' : undefined;
      // aws4 signs a content-length of its own when a body is present; both get it explicitly.
      const withLength = input.body === '' ? input : { ...input, headers: { ...input.headers, 'content-length': String(Buffer.byteLength(input.body)) } };
      const ours = signSigV4({ ...withLength, credentials: { ...credentials, sessionToken }, date });
      const theirs = aws4.sign(
        {
          host: input.host,
          method: input.method,
          path: input.query ? `${input.path}?${input.query}` : input.path,
          service: input.service,
          region: input.region,
          headers: { ...withLength.headers, 'X-Amz-Date': '20250304T050607Z' },
          body: input.body,
        },
        { ...credentials, sessionToken },
      );
      expect(ours.headers.authorization).toBe((theirs.headers as Record<string, string>).Authorization);
    });
  }

  it('a different secret, region or body gives a different signature', () => {
    const base = {
      method: 'POST',
      host: 'h',
      path: '/model/x/invoke',
      headers: {},
      body: '{}',
      service: 'bedrock',
      region: 'us-east-1',
      credentials,
      date: SUITE_DATE,
    };
    const reference = signSigV4(base).headers.authorization;
    expect(signSigV4({ ...base, body: '{ }' }).headers.authorization).not.toBe(reference);
    expect(signSigV4({ ...base, region: 'us-west-2' }).headers.authorization).not.toBe(reference);
    expect(signSigV4({ ...base, credentials: { ...credentials, secretAccessKey: 'other' } }).headers.authorization).not.toBe(reference);
  });

  it('the signed request names the canonical URI with the colon encoded twice', () => {
    const signed = signSigV4({ ...cases[0]!.input, credentials, date: SUITE_DATE });
    expect(signed.canonicalRequest.split('\n')[1]).toBe('/model/anthropic.claude-3-5-sonnet-20241022-v2%253A0/invoke');
    expect(signed.canonicalRequest).not.toContain(credentials.secretAccessKey);
  });
});
