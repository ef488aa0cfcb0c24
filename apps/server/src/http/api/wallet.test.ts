import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { epaySign } from '../../domain/wallet/epay.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

const MERCHANT_KEY = 'merchant-secret-key';
let test: TestApp;
let root: Record<string, string>;
let user: Record<string, string>;

const setOption = (key: string, value: string) => test.app.inject({ method: 'PUT', url: '/api/option/', headers: root, payload: { key, value } });

beforeEach(async () => {
  test = await startTestApp();
  root = await test.login();
  await test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username: 'payer', password: 'password123' } });
  user = await test.login('payer', 'password123');
});
afterEach(async () => test.close());

async function enableEpay() {
  for (const [key, value] of [
    ['PayAddress', 'https://pay.example.com/'],
    ['EpayId', '1001'],
    ['EpayKey', MERCHANT_KEY],
    ['ServerAddress', 'https://gw.example.com'],
  ]) {
    expect((await setOption(key!, value!)).json().success).toBe(true);
  }
}

const quotaOf = async (username: string) =>
  Number((await test.context.db.kysely.selectFrom('users').select('quota').where('username', '=', username).executeTakeFirstOrThrow()).quota);

describe('online top-up through Epay', () => {
  it('is off until PayAddress, EpayId and EpayKey are all set', async () => {
    expect((await test.app.inject({ method: 'GET', url: '/api/status' })).json().data.enable_online_topup).toBe(false);
    const refused = await test.app.inject({ method: 'POST', url: '/api/user/pay', headers: user, payload: { amount: 10, payment_method: 'zfb' } });
    expect(refused.json()).toEqual({ success: false, message: '管理员未开启在线充值' });
    await enableEpay();
    expect((await test.app.inject({ method: 'GET', url: '/api/status' })).json().data.enable_online_topup).toBe(true);
  });

  it('quotes amount × Price × TopupGroupRatio and applies the minimum', async () => {
    await enableEpay();
    const quote = (amount: unknown) => test.app.inject({ method: 'POST', url: '/api/user/amount', headers: user, payload: { amount } });
    expect((await quote(10)).json()).toEqual({ success: true, message: 'success', data: '73.00' });
    await setOption('TopupGroupRatio', '{"default":0.5}');
    expect((await quote(10)).json().data).toBe('36.50');
    await setOption('MinTopUp', '5');
    expect((await quote(4)).json()).toEqual({ success: false, message: '充值数量不能小于 5' });
    expect((await quote('ten')).json().success).toBe(false);
    expect((await quote(2.5)).json()).toEqual({ success: false, message: '充值数量必须是正整数' });
  });

  it('signs the form, credits on a genuine notify exactly once, and rejects forged notifies', async () => {
    await enableEpay();
    const paid = (await test.app.inject({ method: 'POST', url: '/api/user/pay', headers: user, payload: { amount: 10, payment_method: 'zfb' } })).json();
    expect(paid.success).toBe(true);
    expect(paid.url).toBe('https://pay.example.com/submit.php');
    const form = paid.data as Record<string, string>;
    expect(form).toMatchObject({
      pid: '1001',
      type: 'alipay',
      money: '73.00',
      name: 'TUC10',
      sign_type: 'MD5',
      notify_url: 'https://gw.example.com/api/user/epay/notify',
    });
    expect(form.sign).toBe(epaySign(form, MERCHANT_KEY));
    const order = await test.context.db.kysely.selectFrom('top_ups').selectAll().where('trade_no', '=', form.out_trade_no!).executeTakeFirstOrThrow();
    expect(order).toMatchObject({ status: 'pending', amount: 10, money: 73 });

    const notifyParams: Record<string, string> = {
      pid: '1001',
      trade_no: 'EP123',
      out_trade_no: form.out_trade_no!,
      type: 'alipay',
      name: 'TUC10',
      money: '73.00',
      trade_status: 'TRADE_SUCCESS',
    };
    const forged = { ...notifyParams, sign: epaySign(notifyParams, 'wrong-key'), sign_type: 'MD5' };
    const forgedAnswer = await test.app.inject({ method: 'GET', url: `/api/user/epay/notify?${new URLSearchParams(forged)}` });
    expect(forgedAnswer.body).toBe('fail');
    const cheaper = { ...notifyParams, money: '0.01' };
    const cheaperSigned = { ...cheaper, sign: epaySign(cheaper, MERCHANT_KEY), sign_type: 'MD5' };
    expect((await test.app.inject({ method: 'GET', url: `/api/user/epay/notify?${new URLSearchParams(cheaperSigned)}` })).body).toBe('fail');
    expect(await quotaOf('payer')).toBe(0);

    const genuine = { ...notifyParams, sign: epaySign(notifyParams, MERCHANT_KEY), sign_type: 'MD5' };
    const changedUsers: number[] = [];
    test.context.changes.on('user', (id) => changedUsers.push(id));
    const answer = await test.app.inject({ method: 'GET', url: `/api/user/epay/notify?${new URLSearchParams(genuine)}` });
    expect(answer.body).toBe('success');
    expect(await quotaOf('payer')).toBe(10 * 500000);
    // The relay's balance cache must drop the payer at once, not on its next sync.
    expect(changedUsers).toEqual([Number(user['new-api-user'])]);

    // The provider repeats notifies; a replay (here as a form POST) credits nothing more.
    const replay = await test.app.inject({
      method: 'POST',
      url: '/api/user/epay/notify',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(genuine).toString(),
    });
    expect(replay.body).toBe('success');
    const concurrent = await Promise.all(
      Array.from({ length: 10 }, () => test.app.inject({ method: 'GET', url: `/api/user/epay/notify?${new URLSearchParams(genuine)}` })),
    );
    expect(concurrent.every((response) => response.body === 'success')).toBe(true);
    expect(await quotaOf('payer')).toBe(10 * 500000);
    expect(changedUsers).toHaveLength(1);

    const paidOrder = await test.context.db.kysely.selectFrom('top_ups').selectAll().where('trade_no', '=', form.out_trade_no!).executeTakeFirstOrThrow();
    expect(paidOrder.status).toBe('success');
    const logs = await test.context.db.kysely.selectFrom('logs').selectAll().where('type', '=', 1).execute();
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ username: 'payer', quota: 5000000 });
    expect(JSON.parse(logs[0]!.other)).toEqual({ kind: 'online_topup', quota: 5000000, money: Number(paidOrder.money) });
  });

  it('refuses a validly signed notify whose money is missing, malformed or not the order amount', async () => {
    await enableEpay();
    const form = (await test.app.inject({ method: 'POST', url: '/api/user/pay', headers: user, payload: { amount: 10, payment_method: 'zfb' } })).json()
      .data as Record<string, string>;
    const base: Record<string, string> = {
      pid: '1001',
      trade_no: 'EP9',
      out_trade_no: form.out_trade_no!,
      type: 'alipay',
      name: 'TUC10',
      trade_status: 'TRADE_SUCCESS',
    };
    const notify = (params: Record<string, string>) =>
      test.app.inject({
        method: 'GET',
        url: `/api/user/epay/notify?${new URLSearchParams({ ...params, sign: epaySign(params, MERCHANT_KEY), sign_type: 'MD5' })}`,
      });
    const orderStatus = async () =>
      (await test.context.db.kysely.selectFrom('top_ups').select('status').where('trade_no', '=', form.out_trade_no!).executeTakeFirstOrThrow()).status;

    // The order costs 73.00. Number() would read '0x49' and '7.3e1' as 73, and '' as 0.
    for (const money of [undefined, '', 'abc', 'NaN', 'Infinity', '73.00abc', '0x49', '7.3e1', ' 73.00', '-73.00', '73.01', '72.99', '7300']) {
      const params = money === undefined ? base : { ...base, money };
      const answer = await notify(params);
      expect(answer.body, `money ${String(money)}`).toBe('fail');
      expect(await quotaOf('payer')).toBe(0);
      expect(await orderStatus()).toBe('pending');
    }
    expect(await test.context.db.kysely.selectFrom('logs').select('id').where('type', '=', 1).execute()).toEqual([]);

    // The same notify with the order's money goes through; without the decimals too.
    expect((await notify({ ...base, money: '73' })).body).toBe('success');
    expect([await quotaOf('payer'), await orderStatus()]).toEqual([10 * 500000, 'success']);
    // A paid order is no excuse either: a replay without money is still refused.
    expect((await notify(base)).body).toBe('fail');
  });

  it('answers fail for an unknown order or a failed trade', async () => {
    await enableEpay();
    const unknown = { pid: '1001', out_trade_no: 'nope', money: '1.00', trade_status: 'TRADE_SUCCESS' };
    const signed = { ...unknown, sign: epaySign(unknown, MERCHANT_KEY) };
    expect((await test.app.inject({ method: 'GET', url: `/api/user/epay/notify?${new URLSearchParams(signed)}` })).body).toBe('fail');
    const missing = await test.app.inject({ method: 'GET', url: '/api/user/epay/notify' });
    expect(missing.body).toBe('fail');
  });

  it('refuses an unknown payment method', async () => {
    await enableEpay();
    const response = await test.app.inject({ method: 'POST', url: '/api/user/pay', headers: user, payload: { amount: 10, payment_method: 'bitcoin' } });
    expect(response.json()).toEqual({ success: false, message: '不支持的支付方式' });
  });
});
