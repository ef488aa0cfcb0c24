import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TokenKey, TokenKeys } from '@modelgate/contract';
import type { AppContext } from '../../app-context.js';
import { tokenInputSchema, toWireToken } from '../../domain/tokens/token-fields.js';
import { TokenKeyAccess, tokenDeleteIdsSchema, tokenIdsSchema } from '../../domain/tokens/token-key-access.js';
import { TokenService } from '../../domain/tokens/token-service.js';
import { badRequest } from '../../errors/app-error.js';
import { pageOf, readPaging } from '../../lib/paging.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import { enforceRateLimit } from '../../lib/rate-limit.js';
import { parseInput } from '../../lib/parse-input.js';
import { ok } from '../envelope.js';
import type { SpendableQuota } from '../../domain/billing/spendable-quota.js';
import { withSpendableRemain } from './console-balances.js';

function tokenId(params: unknown): number {
  const raw = (params as { id?: string }).id ?? '';
  if (!/^\d{1,15}$/.test(raw)) throw badRequest('无效的令牌 ID', 'token:invalid_id');
  return Number(raw);
}

const queryText = (query: unknown, name: string): string | undefined => {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
};

/** How often one user may read full keys: new-api's critical limit (CRITICAL_RATE_LIMIT per 20 minutes). */
const KEY_READ_WINDOW_SECONDS = 20 * 60;

/**
 * A signed-in user's own API tokens (spec 02 §7). Every answer carries masked keys; the full key
 * comes only from the key routes, where the super administrator may also read another user's
 * key (logged). Nobody reaches another user's tokens otherwise.
 */
export function tokenRoutes(app: FastifyInstance, context: AppContext, balances: SpendableQuota): void {
  const signedIn = { preHandler: authGuard(context.users.repository, 'user') };
  const tokens = new TokenService(context.db, context.options, context.changes);

  const list = async (userId: number, query: unknown) => {
    const paging = readPaging(query, ['size', 'page_size']);
    const search = { keyword: queryText(query, 'keyword'), key: queryText(query, 'token') };
    const { items, total } = await tokens.list(userId, search, paging);
    return ok(pageOf(await withSpendableRemain(balances, items.map(toWireToken)), total, paging));
  };
  app.get('/api/token/', signedIn, async (request) => list(Number(currentUser(request).id), request.query));
  app.get('/api/token/search', signedIn, async (request) => list(Number(currentUser(request).id), request.query));

  app.get('/api/token/:id', signedIn, async (request) =>
    ok((await withSpendableRemain(balances, [toWireToken(await tokens.get(Number(currentUser(request).id), tokenId(request.params)))]))[0]),
  );

  app.post('/api/token/', signedIn, async (request) => {
    const input = parseInput(tokenInputSchema, request.body);
    const created = (await tokens.create(currentUser(request), input)).map(toWireToken);
    // One token answers as an object (new-api's shape); a `count` request answers with the list.
    return ok(input.count === undefined ? created[0] : created, '令牌创建成功');
  });

  app.put('/api/token/', signedIn, async (request) => {
    const input = parseInput(tokenInputSchema, request.body);
    const statusOnly = queryText(request.query, 'status_only');
    const user = currentUser(request);
    const token =
      statusOnly !== undefined && statusOnly !== '' && statusOnly !== 'false'
        ? await tokens.setStatus(user, input.id, input.status, balances)
        : await tokens.update(user, input, balances);
    // The balance as the console shows it everywhere: the column leaves out what the relay's leases hold.
    return ok((await withSpendableRemain(balances, [toWireToken(token)]))[0], '更新成功');
  });

  // Counted per user, in a bucket of its own: copying keys must not eat the sign-in budget of a shared IP.
  const limitKeyReads = async (request: FastifyRequest, reply: FastifyReply) => {
    const rule = { bucket: 'token-key', limit: context.config.rateLimits.critical, windowSeconds: KEY_READ_WINDOW_SECONDS };
    await enforceRateLimit(context.rateLimits, rule, `user-${currentUser(request).id}`);
    // A full key must not sit in a shared or browser cache.
    void reply.header('cache-control', 'no-store');
  };
  const keys = new TokenKeyAccess(context, tokens.repository);
  // new-api's console POSTs; GET serves scripts and the wording. Both are the same read.
  const readKey = async (request: FastifyRequest, reply: FastifyReply) => {
    await limitKeyReads(request, reply);
    return ok<TokenKey>({ key: await keys.read({ user: currentUser(request), ip: request.ip }, tokenId(request.params)) });
  };
  app.get('/api/token/:id/key', signedIn, readKey);
  app.post('/api/token/:id/key', signedIn, readKey);

  app.post('/api/token/batch/keys', signedIn, async (request, reply) => {
    await limitKeyReads(request, reply);
    const { ids } = parseInput(tokenIdsSchema, request.body);
    return ok<TokenKeys>({ keys: await keys.readOwned(currentUser(request), ids) });
  });

  const remove = async (userId: number, params: unknown) => {
    await tokens.remove(userId, tokenId(params));
    return ok(undefined, '删除成功');
  };
  app.delete('/api/token/:id', signedIn, async (request) => remove(Number(currentUser(request).id), request.params));

  // new-api's console deletes the rows it has selected at once; the answer is how many went.
  app.post('/api/token/batch', signedIn, async (request) => {
    const { ids } = parseInput(tokenDeleteIdsSchema, request.body);
    return ok<number>(await tokens.removeMany(Number(currentUser(request).id), ids), '删除成功');
  });
}
