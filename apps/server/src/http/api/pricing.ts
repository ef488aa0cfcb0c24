import { ChannelStatus } from '@modelgate/contract';
import type { Envelope, PricedModel, PricingExtras, PricingVendor } from '@modelgate/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../errors/app-error.js';
import { tagsOf, vendorOf } from '../../domain/billing/model-vendors.js';
import { groupRatioOf, resolvePricing } from '../../domain/billing/pricing.js';
import type { OptionService } from '../../domain/options/option-service.js';
import { usableGroups } from '../../domain/tokens/usable-groups.js';
import { authenticate } from '../../middleware/auth.js';

/** Groups, per model, that an enabled channel serves it in (abilities of enabled channels). */
async function servedModels(context: AppContext): Promise<Map<string, Set<string>>> {
  const rows = await context.db.kysely
    .selectFrom('abilities')
    .innerJoin('channels', 'channels.id', 'abilities.channel_id')
    .select(['abilities.model as model', 'abilities.group as group'])
    .where('channels.status', '=', ChannelStatus.Enabled)
    .where('abilities.enabled', '=', 1)
    .distinct()
    .execute();
  const served = new Map<string, Set<string>>();
  for (const { model, group } of rows) {
    let groups = served.get(model);
    if (!groups) served.set(model, (groups = new Set()));
    groups.add(group);
  }
  return served;
}

function pricingItem(options: OptionService, model: string, groups: string[]): PricedModel | undefined {
  let pricing;
  try {
    pricing = resolvePricing(options, model, '');
  } catch (error) {
    // A model without a ratio or price cannot be called (the relay refuses it), so it is not offered.
    if (error instanceof AppError) return undefined;
    throw error;
  }
  const fixed = pricing.modelPrice >= 0;
  const item: PricedModel = {
    model_name: model,
    quota_type: fixed ? 1 : 0,
    model_ratio: fixed ? 0 : pricing.modelRatio,
    model_price: fixed ? pricing.modelPrice : 0,
    completion_ratio: fixed ? 0 : pricing.completionRatio,
    enable_groups: groups,
    owner_by: '',
  };
  const cacheRatios = options.json<Record<string, number>>('CacheRatio');
  if (Object.hasOwn(cacheRatios, model) && typeof cacheRatios[model] === 'number') item.cache_ratio = cacheRatios[model];
  const tags = tagsOf(model);
  if (tags) item.tags = tags;
  return item;
}

/**
 * The public pricing page's data, as new-api's GET /api/pricing: the models some enabled channel
 * serves in a group the caller may use (UserUsableGroups, plus its own group when signed in),
 * with those groups and their ratios.
 */
export function pricingRoutes(app: FastifyInstance, context: AppContext): void {
  const { options, users } = context;

  app.get('/api/pricing', async (request) => {
    // Signed in or not: a session only adds the user's own group.
    const user = request.headers.cookie || request.headers.authorization ? await authenticate(request, users.repository).catch(() => undefined) : undefined;
    const usable = usableGroups(options, user?.group ?? '');
    const usableGroup: Record<string, string> = {};
    const groupRatio: Record<string, number> = {};
    for (const [name, { desc }] of Object.entries(usable)) {
      usableGroup[name] = desc;
      groupRatio[name] = groupRatioOf(options, name);
    }
    const data: PricedModel[] = [];
    const vendors = new Map<number, PricingVendor>();
    for (const [model, servedIn] of [...(await servedModels(context))].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const groups = [...servedIn].filter((group) => Object.hasOwn(usableGroup, group)).sort();
      if (groups.length === 0) continue;
      const item = pricingItem(options, model, groups);
      if (!item) continue;
      const vendor = vendorOf(model);
      if (vendor) {
        item.vendor_id = vendor.id;
        vendors.set(vendor.id, vendor);
      }
      data.push(item);
    }
    return {
      success: true,
      message: '',
      data,
      vendors: [...vendors.values()].sort((a, b) => a.id - b.id),
      group_ratio: groupRatio,
      usable_group: usableGroup,
    } satisfies Envelope<PricedModel[]> & PricingExtras;
  });
}
