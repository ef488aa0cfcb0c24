import { ChannelType, channelTypeInfo, type ChannelTypeBalance } from '@modelgate/contract';
import { z } from 'zod';
import { badRequest } from '../../errors/app-error.js';
import { channelSecrets } from '../../lib/mask-secrets.js';
import { firstKey, getUpstreamJson, upstreamFailure, type UpstreamCall } from './upstream-http.js';

/** Which balance API a type's account answers is said by its contract row. */
type BalanceKind = ChannelTypeBalance['api'];
const balanceKindOf = (type: number): BalanceKind | undefined => channelTypeInfo(type)?.balance?.api;

const DEFAULT_BASE: Record<BalanceKind, string> = {
  openai: 'https://api.openai.com',
  openrouter: 'https://openrouter.ai',
  siliconflow: 'https://api.siliconflow.cn',
  deepseek: 'https://api.deepseek.com',
};

export const supportsBalance = (type: number): boolean => balanceKindOf(type) !== undefined;

export interface BalanceChannel {
  type: number;
  base_url: string;
  key: string;
}

const subscriptionSchema = z.object({
  has_payment_method: z.boolean().optional().default(false),
  hard_limit_usd: z.number(),
});
const usageSchema = z.object({ total_usage: z.number() });
const deepSeekSchema = z.object({
  balance_infos: z.array(z.object({ currency: z.string(), total_balance: z.union([z.string(), z.number()]) })),
});
const siliconFlowSchema = z.object({
  code: z.number().optional(),
  message: z.string().optional(),
  data: z.object({ totalBalance: z.union([z.string(), z.number()]) }).optional(),
});
const openRouterSchema = z.object({ data: z.object({ total_credits: z.number(), total_usage: z.number() }) });

const WHAT = '查询余额';
const dateOnly = (date: Date) => date.toISOString().slice(0, 10);

function toNumber(call: UpstreamCall, value: string | number): number {
  const number = typeof value === 'number' ? value : Number.parseFloat(value);
  if (!Number.isFinite(number)) throw upstreamFailure(call, '上游返回的余额不是数字');
  return number;
}

/**
 * Asks the provider for the channel's remaining balance. OpenAI-style accounts report a hard
 * limit and the month's usage in cents; the others report the balance directly.
 */
export async function fetchBalance(channel: BalanceChannel, options: { timeoutMs: number; now?: Date }): Promise<number> {
  const now = options.now ?? new Date();
  const kind = balanceKindOf(channel.type);
  if (!kind) throw badRequest('该渠道类型不支持查询余额', 'channel:balance_unsupported');
  if (channel.type === ChannelType.Custom && channel.base_url === '') {
    throw badRequest('自定义渠道需要先填写 Base URL 才能查询余额', 'channel:balance_no_base_url');
  }
  const base = (channel.base_url || DEFAULT_BASE[kind]).replace(/\/+$/, '');
  const headers = { authorization: `Bearer ${firstKey(channel.key)}` };
  const call: UpstreamCall = { what: WHAT, secrets: channelSecrets(channel.key), timeoutMs: options.timeoutMs };

  switch (kind) {
    case 'openai': {
      const subscription = await getUpstreamJson(call, `${base}/v1/dashboard/billing/subscription`, headers, subscriptionSchema);
      // Accounts without a payment method are prepaid grants: count usage from 100 days back.
      const start = subscription.has_payment_method ? `${now.toISOString().slice(0, 7)}-01` : dateOnly(new Date(now.getTime() - 100 * 24 * 3600 * 1000));
      const usageUrl = `${base}/v1/dashboard/billing/usage?start_date=${start}&end_date=${dateOnly(now)}`;
      const usage = await getUpstreamJson(call, usageUrl, headers, usageSchema);
      return subscription.hard_limit_usd - usage.total_usage / 100;
    }
    case 'deepseek': {
      const body = await getUpstreamJson(call, `${base}/user/balance`, headers, deepSeekSchema);
      const info = body.balance_infos.find((entry) => entry.currency === 'CNY') ?? body.balance_infos[0];
      if (!info) throw upstreamFailure(call, '上游没有返回余额');
      return toNumber(call, info.total_balance);
    }
    case 'siliconflow': {
      const body = await getUpstreamJson(call, `${base}/v1/user/info`, headers, siliconFlowSchema);
      if ((body.code !== undefined && body.code !== 20000) || !body.data) {
        throw upstreamFailure(call, body.message ?? '上游没有返回余额');
      }
      return toNumber(call, body.data.totalBalance);
    }
    case 'openrouter': {
      const origin = base.replace(/\/api(\/v1)?$/, '');
      const body = await getUpstreamJson(call, `${origin}/api/v1/credits`, headers, openRouterSchema);
      return body.data.total_credits - body.data.total_usage;
    }
    default: {
      const unreachable: never = kind;
      return unreachable;
    }
  }
}
