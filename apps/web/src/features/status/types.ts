import type { SiteStatus } from '@modelgate/contract';

/**
 * The public status object of GET /api/status (spec 01 §3 "Status information"). Every field is
 * optional here, and chats may be JSON text: the console also reads the copy an older server left
 * in localStorage.
 */
export type SystemStatus = Partial<Omit<SiteStatus, 'chats'>> & { chats?: SiteStatus['chats'] | string };

/** Status switches that can hide a navigation entry. */
export type StatusFlag = 'enable_data_export' | 'enable_drawing' | 'enable_task';
