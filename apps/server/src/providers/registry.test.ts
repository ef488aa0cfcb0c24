import { CHANNEL_TYPES, ChannelType, canRelayChannelType } from '@modelgate/contract';
import { describe, expect, it } from 'vitest';
import { MidjourneyAdaptor } from '../relay/tasks/midjourney-adaptor.js';
import { SunoAdaptor } from '../relay/tasks/suno-adaptor.js';
import { supportsBalance } from '../domain/channels/channel-balance.js';
import { adaptorFor } from './registry.js';

/**
 * A new provider is a contract row, a folder and a registry line: this walk checks the three agree,
 * so a row whose relay has no adaptor, or an adaptor no row asks for, fails here.
 */
describe('the provider registry against the contract table', () => {
  it('names every type once, and every name in ChannelType is a row', () => {
    const values = CHANNEL_TYPES.map((info) => info.value);
    expect(new Set(values).size).toBe(values.length);
    expect(Object.values(ChannelType).sort((a, b) => a - b)).toEqual([...values].sort((a, b) => a - b));
    for (const info of CHANNEL_TYPES) expect(info.name.trim(), `type ${info.value}`).not.toBe('');
  });

  it('gives every type the table relays (openai or native) an adaptor, and none to the others', () => {
    for (const info of CHANNEL_TYPES) {
      const adaptor = adaptorFor(info.value);
      if (info.relay === 'openai' || info.relay === 'native') {
        expect(adaptor, `type ${info.value} (${info.name}) is relayed as ${info.relay} but has no adaptor`).toBeDefined();
        expect(adaptor!.name).not.toBe('');
        expect(typeof adaptor!.buildRequest).toBe('function');
        expect(typeof adaptor!.classifyError).toBe('function');
      } else {
        expect(adaptor, `type ${info.value} (${info.name}) is ${info.relay} but has an adaptor`).toBeUndefined();
      }
    }
  });

  it('gives every type the table runs as tasks a task adaptor, and none to the others', () => {
    // The adaptors' dependencies are not used to read which types they serve.
    const none = undefined as never;
    const taskTypes = [new MidjourneyAdaptor(none, none, none, none), new SunoAdaptor(none, none, none)].flatMap((adaptor) => [...adaptor.channelTypes]);
    const taskRows = CHANNEL_TYPES.filter((info) => info.relay === 'task').map((info) => info.value);
    expect(taskTypes.sort((a, b) => a - b)).toEqual(taskRows.sort((a, b) => a - b));
  });

  it('lets the console offer exactly the types that relay or run tasks', () => {
    for (const info of CHANNEL_TYPES) expect(canRelayChannelType(info.value), `type ${info.value}`).toBe(info.relay !== 'none');
  });

  it('says which models a relayed native type serves, so the catalogue and the channel form can name them', () => {
    for (const info of CHANNEL_TYPES.filter((row) => row.relay === 'native' || row.relay === 'task')) {
      expect(info.models ?? info.offers, `type ${info.value} (${info.name})`).toBeDefined();
    }
  });

  it('asks a balance only of the relayed types whose row names a balance API', () => {
    for (const info of CHANNEL_TYPES) {
      expect(supportsBalance(info.value), `type ${info.value}`).toBe(info.balance !== undefined);
      if (info.balance) expect(info.relay, `type ${info.value} has a balance but is not relayed`).not.toBe('none');
    }
  });
});
