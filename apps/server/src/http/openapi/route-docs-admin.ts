import {
  AUDIT_ACTIONS,
  channelKeySchema,
  abilityRepairSchema,
  auditEntrySchema,
  keyStatusPageSchema,
  asyncTaskSchema,
  balanceRefreshSchema,
  catalogueModelSchema,
  channelPageSchema,
  drawingTaskSchema,
  listedChannelSchema,
  logStatSchema,
  optionEntrySchema,
  pageSchema,
  pricedModelSchema,
  pricingExtrasSchema,
  quotaDataRowSchema,
  redemptionSchema,
  tokenKeySchema,
  tokenKeysSchema,
  wireChannelSchema,
  wireLogSchema,
  wireTokenSchema,
} from '@modelgate/contract';
import { z } from 'zod';
import { channelInputSchema } from '../../domain/channels/channel-fields.js';
import { batchIdsSchema, batchTagSchema, multiKeyManageSchema, tagEditSchema, tagSchema, wrappedCreateSchema } from '../../domain/channels/channel-service.js';
import { tokenInputSchema } from '../../domain/tokens/token-fields.js';
import { tokenDeleteIdsSchema, tokenIdsSchema } from '../../domain/tokens/token-key-access.js';
import { testParams as channelTestParams, testQuery as channelTestQuery } from '../api/channel-test.js';
import { fetchModelsBody, listQuery as channelListQuery } from '../api/channels.js';
import { putOptionBody } from '../api/options.js';
import {
  createBody as createRedemptionBody,
  idParam as redemptionIdParams,
  statusBody as redemptionStatusBody,
  updateBody as updateRedemptionBody,
} from '../api/redemptions.js';
import { pagingFields, pagingQuery } from './paging-query.js';
import type { RouteDocs } from './route-doc-types.js';

const paging = pagingFields;
const numericId = z.object({ id: z.string().regex(/^\d{1,15}$/) });
const timestamp = z.string().regex(/^-?\d+$/);

const logFilter = z.object({
  ...paging,
  type: z.string().optional().describe('Log type: 1 top-up, 2 consume, 3 manage, 4 system, 5 error.'),
  username: z.string().optional().describe('Administrators only.'),
  channel: z.string().optional().describe('Channel id; administrators only.'),
  token_name: z.string().optional(),
  model_name: z.string().optional(),
  start_timestamp: timestamp.optional().describe('Unix seconds.'),
  end_timestamp: timestamp.optional().describe('Unix seconds.'),
  group: z.string().optional(),
});
const exportFilter = logFilter.omit({ p: true, page_size: true }).extend({
  lang: z.enum(['en', 'zh']).optional().describe('Header language; otherwise Accept-Language decides (zh or English).'),
});
const auditFilter = z.object({
  ...paging,
  action: z.enum(AUDIT_ACTIONS).optional().describe('One action code.'),
  actor: z.string().optional().describe("The actor's username."),
  target_type: z.string().optional().describe('user, channel, token, redemption, option, log.'),
  target_id: z.string().optional(),
  ip: z.string().optional(),
  start_timestamp: timestamp.optional().describe('Unix seconds.'),
  end_timestamp: timestamp.optional().describe('Unix seconds.'),
});
const dataQuery = z.object({
  start_timestamp: timestamp.describe('Unix seconds.'),
  end_timestamp: timestamp.describe('Unix seconds.'),
  username: z.string().optional().describe("One user's rows instead of everyone's sums (administrators)."),
});
const taskQuery = z.object({
  ...paging,
  task_id: z.string().optional(),
  platform: z.string().optional(),
  status: z.string().optional(),
  action: z.string().optional(),
  channel_id: z.string().optional().describe('Administrators only.'),
  start_timestamp: timestamp.optional(),
  end_timestamp: timestamp.optional(),
});
const mjQuery = z.object({
  ...paging,
  mj_id: z.string().optional(),
  channel_id: z.string().optional().describe('Administrators only.'),
  start_timestamp: timestamp.optional().describe('Unix milliseconds.'),
  end_timestamp: timestamp.optional().describe('Unix milliseconds.'),
});
const tokenListQuery = z.object({
  p: paging.p,
  size: paging.page_size,
  page_size: paging.page_size,
  keyword: z.string().optional().describe('Part of the token name.'),
  token: z.string().optional().describe('Part of the key.'),
});
const redemptionSearch = pagingQuery.extend({ keyword: z.string().optional() });
const channelCreateBody = z.union([wrappedCreateSchema, channelInputSchema]);
const tokenPage = pageSchema(wireTokenSchema);
const logPage = pageSchema(wireLogSchema);
const logRows = z.array(wireLogSchema);
const redemptionPage = pageSchema(redemptionSchema);
const taskPage = pageSchema(asyncTaskSchema);
const drawingPage = pageSchema(drawingTaskSchema);
const quotaDataRows = z.array(quotaDataRowSchema);
const changedCount = z.number().int().describe('How many channels changed.');
const balance = z.number().describe("The channel's upstream balance.");
/** new-api's console reads the balance beside the envelope. */
const besideBalance = z.object({ balance });
const tokenPut = 'Update a token; with ?status_only=true only its status changes';

export const ADMIN_ROUTE_DOCS: RouteDocs = {
  'GET /api/token/': { summary: "List the user's tokens (masked keys)", auth: 'user', query: tokenListQuery, data: tokenPage },
  'GET /api/token/search': { summary: "Search the user's tokens", auth: 'user', query: tokenListQuery, data: tokenPage },
  'GET /api/token/:id': { summary: 'One token (masked key)', auth: 'user', params: numericId, data: wireTokenSchema },
  'POST /api/token/': {
    summary: 'Create a token, or `count` tokens',
    auth: 'user',
    body: tokenInputSchema,
    data: z.union([wireTokenSchema, z.array(wireTokenSchema)]).describe('One token, or the list when `count` was given.'),
  },
  'PUT /api/token/': {
    summary: tokenPut,
    auth: 'user',
    body: tokenInputSchema,
    query: z.object({ status_only: z.string().optional() }),
    data: wireTokenSchema,
  },
  'GET /api/token/:id/key': { summary: "A token's full key (rate limited, not cached)", auth: 'user', params: numericId, data: tokenKeySchema },
  'POST /api/token/:id/key': { summary: "A token's full key (rate limited, not cached)", auth: 'user', params: numericId, data: tokenKeySchema },
  'POST /api/token/batch/keys': { summary: 'Full keys of several own tokens', auth: 'user', body: tokenIdsSchema, data: tokenKeysSchema },
  'DELETE /api/token/:id': { summary: 'Delete a token', auth: 'user', params: numericId },
  'POST /api/token/batch': {
    summary: 'Delete several own tokens',
    auth: 'user',
    body: tokenDeleteIdsSchema,
    data: z.number().int().describe('How many tokens were deleted.'),
  },

  'GET /api/channel/': { summary: 'List channels (keys masked)', auth: 'admin', query: channelListQuery, paged: true, data: channelPageSchema },
  'GET /api/channel/search': { summary: 'Search channels', auth: 'admin', query: channelListQuery, paged: true, data: channelPageSchema },
  'GET /api/channel/models': { summary: 'Every model a channel type offers', auth: 'admin', data: z.array(catalogueModelSchema) },
  'GET /api/channel/models_enabled': { summary: 'Models some enabled channel serves', auth: 'admin', data: z.array(z.string()) },
  'POST /api/channel/:id/key': {
    summary: "A channel's full key (root, within a fresh POST /api/verify; else code VERIFICATION_REQUIRED)",
    auth: 'root',
    params: numericId,
    data: channelKeySchema,
  },
  'GET /api/channel/:id': { summary: 'One channel (key masked)', auth: 'admin', params: numericId, data: listedChannelSchema },
  'POST /api/channel/': {
    summary: 'Create a channel, or one per key (batch / multi-key modes)',
    auth: 'admin',
    body: channelCreateBody,
    data: z.union([wireChannelSchema, z.array(wireChannelSchema)]).describe('The channel, or the list in batch mode.'),
  },
  'POST /api/channel/copy/:id': {
    summary: 'Copy a channel with its key (the key stays on the server)',
    auth: 'admin',
    params: numericId,
    query: z.object({ suffix: z.string().optional(), reset_balance: z.string().optional() }),
    data: wireChannelSchema,
  },
  'PUT /api/channel/': { summary: 'Update a channel', auth: 'admin', body: channelInputSchema, data: wireChannelSchema },
  'DELETE /api/channel/:id': { summary: 'Delete a channel', auth: 'admin', params: numericId },
  'DELETE /api/channel/disabled': { summary: 'Delete every disabled channel', auth: 'admin', data: z.number().int() },
  'POST /api/channel/batch': { summary: 'Delete channels by id', auth: 'admin', body: batchIdsSchema, data: changedCount },
  'POST /api/channel/batch/tag': { summary: 'Set the tag of channels', auth: 'admin', body: batchTagSchema, data: changedCount },
  'POST /api/channel/fix': { summary: 'Rebuild the abilities table from the channels', auth: 'admin', data: abilityRepairSchema },
  'POST /api/channel/multi_key/manage': {
    summary: "Manage a multi-key channel's keys",
    auth: 'admin',
    description:
      "new-api's actions: get_key_status (data: a page of the keys with their states; page, page_size, status filter), enable_key, disable_key and delete_key (key_index), enable_all_keys, disable_all_keys, delete_disabled_keys (data: how many). A key is never returned, only its ends.",
    body: multiKeyManageSchema,
    data: z.union([keyStatusPageSchema, z.number().int()]).optional(),
  },
  'GET /api/channel/tag/models': {
    summary: 'The longest model list among the channels with a tag',
    auth: 'admin',
    query: tagSchema,
    data: z.string().describe('Comma-separated models; empty when none.'),
  },
  'PUT /api/channel/tag': { summary: 'Edit every channel with a tag', auth: 'admin', body: tagEditSchema, data: changedCount },
  'POST /api/channel/tag/enabled': { summary: 'Enable every channel with a tag', auth: 'admin', body: tagSchema, data: changedCount },
  'POST /api/channel/tag/disabled': { summary: 'Disable every channel with a tag', auth: 'admin', body: tagSchema, data: changedCount },
  'GET /api/channel/test': { summary: 'Test every enabled channel', auth: 'admin' },
  'GET /api/channel/test/:id': {
    summary: 'Test one channel with a real upstream call',
    auth: 'admin',
    description: 'Answers {success, message, time}: time in seconds, beside the envelope fields rather than in data.',
    params: channelTestParams,
    query: channelTestQuery,
    beside: z.object({ time: z.number().describe('Seconds the test took.') }),
  },
  'GET /api/channel/update_balance/:id': {
    summary: "Refresh a channel's upstream balance",
    auth: 'admin',
    params: numericId,
    data: balance,
    beside: besideBalance,
  },
  'GET /api/channel/update_balance': { summary: "Refresh every channel's upstream balance", auth: 'admin', data: balanceRefreshSchema },
  'GET /api/channel/fetch_models/:id': {
    summary: "Read a saved channel's model list from its upstream",
    auth: 'admin',
    params: numericId,
    data: z.array(z.string()),
  },
  'POST /api/channel/fetch_models': {
    summary: 'Read a model list from an upstream before saving',
    auth: 'admin',
    body: fetchModelsBody,
    data: z.array(z.string()),
  },

  'GET /api/redemption/': { summary: 'List redemption codes', auth: 'admin', query: pagingQuery, data: redemptionPage },
  'GET /api/redemption/search': { summary: 'Search redemption codes', auth: 'admin', query: redemptionSearch, data: redemptionPage },
  'GET /api/redemption/:id': { summary: 'One redemption code', auth: 'admin', params: redemptionIdParams, data: redemptionSchema },
  'POST /api/redemption/': { summary: 'Create redemption codes; answers the keys', auth: 'admin', body: createRedemptionBody, data: z.array(z.string()) },
  'PUT /api/redemption/': {
    summary: 'Update a redemption code; with ?status_only=true only its status',
    auth: 'admin',
    body: z.union([updateRedemptionBody, redemptionStatusBody]),
    query: z.object({ status_only: z.string().optional() }),
    data: redemptionSchema,
  },
  'DELETE /api/redemption/:id': { summary: 'Delete a redemption code', auth: 'admin', params: redemptionIdParams },
  'DELETE /api/redemption/invalid': {
    summary: 'Delete every used, disabled and expired redemption code',
    auth: 'admin',
    data: z.number().int().describe('How many codes were deleted.'),
  },

  'GET /api/option/': { summary: 'Every option (secrets left out)', auth: 'root', data: z.array(optionEntrySchema) },
  'PUT /api/option/': { summary: 'Set one option', auth: 'root', body: putOptionBody },
  'POST /api/option/rest_model_ratio': { summary: 'Reset model prices to the defaults', auth: 'root' },
  'POST /api/option/test_smtp': { summary: "Send a test mail to the administrator's address", auth: 'root' },

  'GET /api/group/': { summary: 'Group names', auth: 'admin', data: z.array(z.string()) },
  'GET /api/pricing': {
    summary: 'Models, prices and groups for the pricing page',
    auth: 'public',
    data: z.array(pricedModelSchema),
    beside: pricingExtrasSchema,
  },
  'GET /api/data/': { summary: 'Usage per model and hour (everyone, or one user)', auth: 'admin', query: dataQuery, data: quotaDataRows },
  'GET /api/data/self': {
    summary: "The user's own usage per model and hour (30 days at most)",
    auth: 'user',
    query: dataQuery.omit({ username: true }),
    data: quotaDataRows,
  },

  'GET /api/log/': { summary: 'List usage logs', auth: 'admin', query: logFilter, data: logPage },
  'DELETE /api/log/': { summary: 'Delete logs older than a time', auth: 'admin', query: z.object({ target_timestamp: timestamp }), data: z.number().int() },
  'GET /api/log/search': { summary: 'Search usage logs', auth: 'admin', query: logFilter, data: logRows },
  'GET /api/log/stat': { summary: 'Quota, RPM and TPM over the filtered logs', auth: 'admin', query: logFilter, data: logStatSchema },
  'GET /api/log/self': { summary: "The user's own logs", auth: 'user', query: logFilter, data: logPage },
  'GET /api/log/self/search': { summary: "Search the user's own logs", auth: 'user', query: logFilter, data: logRows },
  'GET /api/log/self/stat': { summary: "Quota, RPM and TPM over the user's own logs", auth: 'user', query: logFilter, data: logStatSchema },
  'GET /api/log/export': {
    summary: 'Download the filtered usage logs as CSV',
    description:
      'Every row the filters of GET /api/log/ select (p and page_size ignored), newest first, streamed. Headers in English, or in Chinese for ?lang=zh or an Accept-Language starting with zh.',
    auth: 'admin',
    query: exportFilter,
    csv: true,
  },
  'GET /api/log/self/export': {
    summary: "Download the user's own filtered logs as CSV",
    description: 'As GET /api/log/export, over the caller’s own rows (username and channel ignored, no admin_info, no channel columns).',
    auth: 'user',
    query: exportFilter,
    csv: true,
  },
  'GET /api/log/token': {
    summary: 'Logs of one API key, read with the key itself',
    auth: 'public',
    description: 'The sk- key in ?key= or in the Authorization header; no session.',
    query: z.object({ key: z.string().optional() }),
    data: logRows,
  },

  'GET /api/audit/': {
    summary: 'The audit log of admin and root actions (read only)',
    auth: 'admin',
    description: 'Administrators see the rows of actors below root; root sees every row. No route edits or deletes a row.',
    query: auditFilter,
    data: pageSchema(auditEntrySchema),
  },

  'GET /api/task/': { summary: 'List async tasks (Suno and others)', auth: 'admin', query: taskQuery, data: taskPage },
  'GET /api/task/self': { summary: "The user's own tasks", auth: 'user', query: taskQuery.omit({ channel_id: true }), data: taskPage },
  'GET /api/mj/': { summary: 'List Midjourney tasks', auth: 'admin', query: mjQuery, data: drawingPage },
  'GET /api/mj/self': { summary: "The user's own Midjourney tasks", auth: 'user', query: mjQuery.omit({ channel_id: true }), data: drawingPage },
};
