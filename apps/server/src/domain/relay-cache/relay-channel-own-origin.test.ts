import { describe, expect, it } from 'vitest';
import { isRoutable, toRelayChannel, type ChannelRow } from './relay-channel.js';

const row = (type: number, baseUrl: string, other = ''): ChannelRow =>
  ({
    id: 1,
    type,
    key: 'k',
    status: 1,
    priority: 0,
    weight: 1,
    base_url: baseUrl,
    models: 'm',
    group: 'default',
    model_mapping: '',
    status_code_mapping: '',
    auto_ban: 1,
    other,
    openai_organization: '',
    test_model: '',
    name: 'c',
  }) as unknown as ChannelRow;

describe('channels whose adaptor finds its own address', () => {
  it('AWS Claude (33) and Vertex AI (41) need no base URL; an empty origin tells the adaptor to use the cloud’s', () => {
    for (const type of [33, 41]) {
      const channel = toRelayChannel(row(type, '', 'us-central1'));
      expect(channel.endpointProblem, `type ${type}`).toBeUndefined();
      expect(channel.endpoint.origin).toBe('');
      expect(channel.endpoint.other).toBe('us-central1');
      expect(isRoutable(channel)).toBe(true);
    }
  });

  it('a base URL, when set, still overrides (tests point channels at the mocks this way)', () => {
    const channel = toRelayChannel(row(33, 'http://127.0.0.1:8123/'));
    expect(channel.endpoint).toMatchObject({ origin: 'http://127.0.0.1:8123', basePath: '' });
  });

  it('a type without a default URL of its own still needs one', () => {
    expect(toRelayChannel(row(8, '')).endpointProblem).toContain('Base URL');
  });
});
