import { describe, expect, it } from 'vitest';
import { buildChatRequest, checkRequest, chooseGroup, chooseModel, conversationForModel, orderGroups } from './chat-request';
import { DEFAULT_SETTINGS, type ChatMessage } from './conversation';
import { replyToHtml } from './reply-markdown';
import { createSseParser, errorMessageOf, interpretEvent } from './sse';

const message = (role: ChatMessage['role'], content: string, status: ChatMessage['status'] = 'complete'): ChatMessage => ({
  id: `${role}-${content}`,
  role,
  content,
  status,
  createdAt: 1,
});

describe('SSE parsing', () => {
  it('assembles events split anywhere, across lines and inside JSON', () => {
    const stream = 'data: {"a":1}\n\ndata: {"b":2}\n\ndata: [DONE]\n\n';
    for (let cut = 1; cut < stream.length; cut += 1) {
      const parser = createSseParser();
      const events = [...parser.push(stream.slice(0, cut)), ...parser.push(stream.slice(cut)), ...parser.finish()];
      expect(events).toEqual(['{"a":1}', '{"b":2}', '[DONE]']);
    }
  });

  it('accepts CRLF and CR line ends, a CRLF split between pieces, comments and multi-line data', () => {
    const parser = createSseParser();
    expect(parser.push(': keep-alive\r\ndata: one\r')).toEqual([]);
    expect(parser.push('\n\r\ndata:two\rdata: three\r\r')).toEqual(['one', 'two\nthree']);
    expect(parser.push('event: ping\nid: 3\n\n')).toEqual([]);
  });

  it('gives the last event when the stream ends without its blank line, and nothing twice', () => {
    const parser = createSseParser();
    expect(parser.push('data: {"x":1}\n\ndata: tail')).toEqual(['{"x":1}']);
    expect(parser.finish()).toEqual(['tail']);
  });

  it('reads text from choices[0].delta.content, the end at [DONE], and errors with their message', () => {
    expect(interpretEvent('{"choices":[{"index":0,"delta":{"content":"Hi"}}]}')).toEqual({ kind: 'delta', text: 'Hi' });
    expect(interpretEvent('{"choices":[{"delta":{"role":"assistant"}}]}')).toEqual({ kind: 'empty' });
    expect(interpretEvent('{"choices":[],"usage":{"total_tokens":3}}')).toEqual({ kind: 'empty' });
    expect(interpretEvent(' [DONE] ')).toEqual({ kind: 'done' });
    expect(interpretEvent('{"error":{"message":"upstream broke","type":"upstream_error","code":"upstream_stream_broken"}}')).toEqual({
      kind: 'error',
      message: 'upstream broke (upstream_stream_broken)',
    });
    expect(interpretEvent('not json at all')).toEqual({ kind: 'error', message: 'not json at all' });
  });

  it('reads the error of an OpenAI error body and of a new-api envelope', () => {
    expect(errorMessageOf({ error: { message: '额度不足', type: 'new_api_error', code: 'insufficient_user_quota' } })).toBe(
      '额度不足 (insufficient_user_quota)',
    );
    expect(errorMessageOf({ error: { message: 'bad model model_not_found', code: 'model_not_found' } })).toBe('bad model model_not_found');
    expect(errorMessageOf({ success: false, message: '无权进行此操作' })).toBe('无权进行此操作');
    expect(errorMessageOf({ error: { type: 'x' } })).toBe('{"type":"x"}');
    expect(errorMessageOf({ choices: [] })).toBeNull();
    expect(errorMessageOf('text')).toBeNull();
  });
});

describe('the request', () => {
  const settings = { ...DEFAULT_SETTINGS, model: 'gpt-4o-mini', group: 'default', systemPrompt: 'Be brief.' };

  it('sends the system prompt, the conversation, stream, model, group and temperature; max_tokens 0 is not sent', () => {
    const history = [message('user', 'hi'), message('assistant', 'hello'), message('user', 'more')];
    expect(buildChatRequest(settings, history)).toEqual({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'more' },
      ],
      stream: true,
      model: 'gpt-4o-mini',
      group: 'default',
      temperature: 0.7,
    });
    expect(buildChatRequest({ ...settings, maxTokens: 100 }, history).max_tokens).toBe(100);
  });

  it('leaves out a blank system prompt, failed replies and empty ones, and keeps stopped ones', () => {
    const history = [
      message('user', 'a'),
      message('assistant', 'error text', 'error'),
      message('user', 'b'),
      message('assistant', 'cut short', 'stopped'),
      message('user', 'c'),
      message('assistant', '', 'stopped'),
    ];
    expect(conversationForModel(history, '  \n')).toEqual([
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: 'cut short' },
      { role: 'user', content: 'c' },
    ]);
  });

  it('sends a question with images as OpenAI content parts: its text, then one image_url part per image', () => {
    const withImages = { ...message('user', 'what is this?'), images: ['https://example.com/a.png', 'data:image/png;base64,AAAA'] };
    const imageOnly = { ...message('user', ' '), images: ['https://example.com/b.png'] };
    expect(buildChatRequest({ ...settings, systemPrompt: '' }, [withImages, message('assistant', 'a cat'), imageOnly]).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
      { role: 'assistant', content: 'a cat' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/b.png' } }] },
    ]);
    // An image alone is a question; text alone stays a plain string.
    expect(checkRequest(settings, '', 1)).toBeNull();
    expect(buildChatRequest(settings, [message('user', 'hi')]).messages.at(-1)).toEqual({ role: 'user', content: 'hi' });
  });

  it('refuses an empty message, a missing model and a bad max_tokens', () => {
    expect(checkRequest(settings, '  ')).toBe('emptyMessage');
    expect(checkRequest({ ...settings, model: '' }, 'hi')).toBe('noModel');
    expect(checkRequest({ ...settings, maxTokens: -1 }, 'hi')).toBe('badMaxTokens');
    expect(checkRequest({ ...settings, maxTokens: 1.5 }, 'hi')).toBe('badMaxTokens');
    expect(checkRequest(settings, 'hi')).toBeNull();
  });

  it('preselects the saved model, else gpt-4o-mini, else the first; groups with the own group first', () => {
    expect(chooseModel(['a', 'gpt-4o-mini'], 'a')).toBe('a');
    expect(chooseModel(['a', 'gpt-4o-mini'], 'gone')).toBe('gpt-4o-mini');
    expect(chooseModel(['b', 'a'], '')).toBe('b');
    expect(chooseModel([], '')).toBe('');
    const ordered = orderGroups(['default', 'vip', 'mine'], 'mine');
    expect(ordered).toEqual(['mine', 'default', 'vip']);
    expect(chooseGroup(ordered, 'vip')).toBe('vip');
    expect(chooseGroup(ordered, 'removed')).toBe('mine');
    expect(chooseGroup([], '')).toBe('');
  });
});

describe('reply Markdown', () => {
  it('renders code blocks, an unfinished fence and line breaks, and shows HTML as text', () => {
    expect(replyToHtml('```js\nconst a = 1 < 2;\n```')).toContain('<pre><code class="language-js">const a = 1 &lt; 2;');
    expect(replyToHtml('```py\nprint(1)')).toContain('<pre><code class="language-py">print(1)');
    expect(replyToHtml('one\ntwo')).toBe('<p>one<br>two</p>\n');
    const html = replyToHtml('<img src=x onerror="alert(1)"> and <b>bold</b>\n\n<div>block</div>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;div&gt;block&lt;/div&gt;');
  });
});
