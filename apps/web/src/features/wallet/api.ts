import type { PaymentFields, PaymentFormExtras } from '@modelgate/contract';
import { api } from '../../lib/api-client';

/** Spec 02 §2: Alipay is "zfb", WeChat Pay is "wx" on the wire. */
export type PaymentMethod = 'zfb' | 'wx';

export interface PaymentForm {
  /** The payment gateway's submit address. */
  url: string;
  /** Signed fields posted to `url` unchanged. */
  params: Record<string, string>;
}

/** Redeems a code; answers the quota added. The server credits a code exactly once. */
export async function redeemCode(key: string): Promise<number> {
  const { data } = await api.post<number>('/api/user/topup', { key });
  return Number(data) || 0;
}

/** The price to pay for `amount` top-up units, as the money string the server computed ("73.00"). */
export async function quoteTopUp(amount: number, signal?: AbortSignal): Promise<string> {
  // Silent: the quote refreshes while the user types, its failure is shown beside the field.
  const { data } = await api.post<string>('/api/user/amount', { amount }, { silent: true, signal });
  return String(data);
}

/** Records a pending order and answers the signed form for the payment gateway. */
export async function requestPayment(amount: number, paymentMethod: PaymentMethod): Promise<PaymentForm> {
  const { data, envelope } = await api.post<PaymentFields>('/api/user/pay', { amount, payment_method: paymentMethod });
  const params = Object.fromEntries(Object.entries(data ?? {}).map(([name, value]) => [name, String(value)]));
  // new-api answers the gateway's address beside the envelope's data.
  const { url } = envelope as Partial<PaymentFormExtras>;
  return { url: typeof url === 'string' ? url : '', params };
}
