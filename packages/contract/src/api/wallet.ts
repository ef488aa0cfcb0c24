import { z } from 'zod';

/**
 * POST /api/user/pay: the signed fields to post to the payment gateway as the envelope's data,
 * and the gateway's address beside it (new-api's shape).
 */
export const paymentFormExtrasSchema = z.strictObject({ url: z.string().describe("The payment gateway's submit address.") });
export const paymentFieldsSchema = z.record(z.string(), z.string()).describe('Signed fields posted to `url` unchanged.');
export type PaymentFields = z.output<typeof paymentFieldsSchema>;
export type PaymentFormExtras = z.output<typeof paymentFormExtrasSchema>;

/** One way to pay on the top-up page (new-api's PayMethods entry). */
export const payMethodSchema = z.strictObject({
  name: z.string(),
  type: z.string().describe('What POST /api/user/pay takes as payment_method.'),
  color: z.string(),
});

/**
 * GET /api/user/topup/info: what new-api's top-up page offers. modelgate pays through Epay only,
 * so Stripe and Creem are always off and their fields empty.
 */
export const topUpInfoSchema = z.strictObject({
  enable_online_topup: z.boolean(),
  enable_stripe_topup: z.boolean(),
  enable_creem_topup: z.boolean(),
  creem_products: z.string(),
  pay_methods: z.array(payMethodSchema),
  min_topup: z.number(),
  stripe_min_topup: z.number(),
  amount_options: z.array(z.number()),
  discount: z.record(z.string(), z.number()),
});
export type TopUpInfo = z.output<typeof topUpInfoSchema>;

/** One online top-up order, as new-api's top-up history lists it. */
export const topUpOrderSchema = z.strictObject({
  id: z.number().int(),
  user_id: z.number().int(),
  amount: z.number().int(),
  money: z.number(),
  trade_no: z.string(),
  payment_method: z.string(),
  create_time: z.number().int(),
  complete_time: z.number().int(),
  status: z.string().describe('pending, success or failed.'),
});
export type TopUpOrder = z.output<typeof topUpOrderSchema>;
