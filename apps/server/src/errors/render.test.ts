import { describe, expect, it } from 'vitest';
import { AppError, badRequest, forbidden, notFound, unauthorized } from './app-error.js';
import { apiStatusFor, renderError, toAppError } from './render.js';

describe('the HTTP status of a failed /api call (new-api’s rule)', () => {
  it('answers 200 for refusals, missing roles, missing resources and upstream failures', () => {
    const refusals = [
      badRequest('无效的参数'),
      forbidden('无权进行此操作，权限不足', 'auth:insufficient_role'),
      notFound('渠道不存在，请刷新后重试'),
      new AppError('channel:upstream', '查询余额失败：上游返回状态码 401', { status: 502 }),
      new AppError('mail:not_configured', 'SMTP 服务器未配置，请联系管理员', { status: 503 }),
      new AppError('quota:busy', '用户额度正在变化，请稍后重试', { status: 409 }),
      new AppError('auth:wrong_credentials', '用户名或密码错误', { status: 401 }),
      toAppError(Object.assign(new Error('bad'), { statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' })),
    ];
    for (const error of refusals) expect(apiStatusFor(error), error.message).toBe(200);
  });

  it('keeps 401 for a missing or dead session, 413, 429, and 500 for our own faults', () => {
    expect(apiStatusFor(unauthorized('无权进行此操作，未登录且未提供 access token', 'auth:not_logged_in'))).toBe(401);
    expect(apiStatusFor(unauthorized('无权进行此操作，access token 无效', 'auth:invalid_access_token'))).toBe(401);
    expect(apiStatusFor(unauthorized('用户已被封禁', 'auth:user_banned'))).toBe(401);
    expect(apiStatusFor(toAppError(Object.assign(new Error('too large'), { statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE' })))).toBe(413);
    expect(apiStatusFor(new AppError('rate_limit:exceeded', '请求过于频繁，请稍后再试', { status: 429 }))).toBe(429);
    expect(apiStatusFor(toAppError(new TypeError('x is undefined')))).toBe(500);
  });

  it('leaves the error its own status for logs and the relay protocols', () => {
    const error = new AppError('channel:no_available_channel', '没有可用的渠道', { status: 503 });
    expect(apiStatusFor(error)).toBe(200);
    expect(error.status).toBe(503);
    expect(renderError(error, 'api')).toEqual({ success: false, message: '没有可用的渠道' });
    expect(renderError(error, 'gemini')).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE' } });
  });
});
