import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { MAX_FORM_FIELDS } from './api-body-parsers.js';

let test: TestApp;
beforeAll(async () => {
  test = await startTestApp();
});
afterAll(async () => test.close());

const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const post = (url: string, payload: string, contentType: string, headers: Record<string, string> = {}) =>
  test.app.inject({ method: 'POST', url, payload, headers: { 'content-type': contentType, ...headers } });

describe('JSON nesting depth on the console API', () => {
  it('refuses a 10,000-deep body on the unauthenticated payment notify with a clear message', async () => {
    const response = await post('/api/user/epay/notify', deepArray(10_000), 'application/json');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: false, message: expect.stringContaining('64') });
    expect(response.json().message).toMatch(/嵌套/);
  });

  it('refuses it on every route, before sign-in is looked at', async () => {
    const deepObject = '{"a":'.repeat(65) + '1' + '}'.repeat(65);
    for (const url of ['/api/user/login', '/api/user/register', '/api/channel/', '/api/option/']) {
      const response = await post(url, deepObject, 'application/json; charset=utf-8');
      expect(response.json(), url).toMatchObject({ success: false, message: expect.stringContaining('64') });
      expect(response.statusCode, url).toBe(200);
    }
  });

  it('still parses ordinary bodies, 64 levels deep included, and refuses prototype poisoning', async () => {
    const login = await post('/api/user/login', JSON.stringify({ username: 'root', password: '123456' }), 'application/json');
    expect(login.json()).toMatchObject({ success: true });
    const deepButAllowed = await post('/api/user/login', `{"username":${deepArray(63)}}`, 'application/json');
    expect(deepButAllowed.json().success).toBe(false);
    expect(deepButAllowed.json().message).not.toMatch(/嵌套/);
    const poisoned = await post('/api/user/login', '{"__proto__":{"role":100}}', 'application/json');
    expect(poisoned.statusCode).toBe(200);
    expect(poisoned.json()).toEqual({ success: false, message: '请求体不是合法的 JSON' });
    const broken = await post('/api/user/login', '{"username":', 'application/json');
    expect(broken.json()).toEqual({ success: false, message: '请求体不是合法的 JSON' });
  });
});

describe('forms on the console API', () => {
  it('reads a payment notify form as before', async () => {
    const response = await post('/api/user/epay/notify', 'out_trade_no=nope&trade_status=TRADE_SUCCESS&sign=x', 'application/x-www-form-urlencoded');
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('fail');
  });

  it('refuses prototype field names and endless field lists', async () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      const response = await post('/api/user/epay/notify', `${name}=1&a=2`, 'application/x-www-form-urlencoded');
      expect(response.statusCode, name).toBe(200);
      expect(response.json(), name).toMatchObject({ success: false, message: expect.stringContaining(name) });
    }
    const many = Array.from({ length: MAX_FORM_FIELDS + 1 }, (_, index) => `f${index}=1`).join('&');
    const response = await post('/api/user/epay/notify', many, 'application/x-www-form-urlencoded');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ success: false, message: expect.stringContaining(String(MAX_FORM_FIELDS)) });
  });
});

describe('JSON nesting depth on the relay', () => {
  it('answers in the caller protocol’s error shape, whatever the content type', async () => {
    const openai = await post('/v1/chat/completions', `{"model":"gpt-4o","messages":${deepArray(10_000)}}`, 'application/json', {
      authorization: 'Bearer sk-whatever',
    });
    expect(openai.statusCode).toBe(400);
    expect(openai.json()).toMatchObject({ error: { message: expect.stringContaining('64'), type: 'invalid_request_error', code: 'json_too_deep' } });

    // Clients that leave out the content type still have their body read as JSON, and checked.
    const untyped = await post('/v1/embeddings', deepArray(100), 'text/plain');
    expect(untyped.statusCode).toBe(400);
    expect(untyped.json()).toMatchObject({ error: { code: 'json_too_deep' } });
    const form = await post('/v1/chat/completions', deepArray(100), 'application/x-www-form-urlencoded');
    expect(form.json()).toMatchObject({ error: { code: 'json_too_deep' } });

    const anthropic = await post('/v1/messages', `{"messages":${deepArray(500)}}`, 'application/json');
    expect(anthropic.statusCode).toBe(400);
    expect(anthropic.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('64') } });
  });
});
