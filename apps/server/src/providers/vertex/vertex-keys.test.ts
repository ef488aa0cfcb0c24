import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseServiceAccount } from '../../lib/google-service-account.js';
import { vertexChannelKeys } from './vertex-keys.js';

const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const account = (project: string) => ({
  type: 'service_account',
  project_id: project,
  private_key: pem,
  client_email: `a@${project}.iam.gserviceaccount.com`,
  token_uri: 'https://oauth2.googleapis.com/token',
});

describe('a Vertex channel’s key field', () => {
  it('a key file pasted as downloaded (pretty-printed over many lines) is one key', () => {
    const pasted = JSON.stringify(account('p1'), null, 2);
    expect(pasted.split('\n').length).toBeGreaterThan(5);
    const keys = vertexChannelKeys(`\n${pasted}\n`);
    expect(keys).toHaveLength(1);
    expect(parseServiceAccount(keys[0]!).projectId).toBe('p1');
  });

  it('a JSON array holds several keys; one compact key per line also works', () => {
    const array = vertexChannelKeys(JSON.stringify([account('p1'), account('p2')], null, 2));
    expect(array.map((key) => parseServiceAccount(key).projectId)).toEqual(['p1', 'p2']);
    const lines = vertexChannelKeys(`${JSON.stringify(account('p3'))}\n\n${JSON.stringify(account('p4'))}\n`);
    expect(lines.map((key) => parseServiceAccount(key).projectId)).toEqual(['p3', 'p4']);
  });

  it('empty is no key', () => {
    expect(vertexChannelKeys('  \n ')).toEqual([]);
  });
});
