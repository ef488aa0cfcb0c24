import type { Envelope } from '@modelgate/contract';

export const ok = <T>(data?: T, message = ''): Envelope<T> => (data === undefined ? { success: true, message } : { success: true, message, data });
