import { z } from 'zod';

/**
 * POST /api/user/pay: the signed fields to post to the payment gateway as the envelope's data,
 * and the gateway's address beside it (new-api's shape).
 */
export const paymentFormExtrasSchema = z.strictObject({ url: z.string().describe("The payment gateway's submit address.") });
export const paymentFieldsSchema = z.record(z.string(), z.string()).describe('Signed fields posted to `url` unchanged.');
export type PaymentFields = z.output<typeof paymentFieldsSchema>;
export type PaymentFormExtras = z.output<typeof paymentFormExtrasSchema>;
