import { describe, expect, it } from 'vitest';
import type { ChatMessage } from './conversation';
import {
  addEvents,
  eventsText,
  finishRecord,
  formatDuration,
  markFirstToken,
  MAX_DEBUG_EVENTS,
  parseCustomBody,
  prettyBody,
  startRecord,
} from './debug-record';
import { addImage, imageLabel, MAX_IMAGES_PER_MESSAGE, normalizeImageUrl } from './image-input';
import { copyText, deleteMessage, editQuestion, historyBeforeReply, regenerableReplyId } from './message-edits';

const message = (id: string, role: ChatMessage['role'], content = id): ChatMessage => ({ id, role, content, status: 'complete', createdAt: 1 });
const conversation = [message('q1', 'user'), message('a1', 'assistant'), message('q2', 'user'), message('a2', 'assistant')];
const ids = (messages: ChatMessage[] | null) => messages?.map((entry) => entry.id);

describe('editing a conversation', () => {
  it('an edited question is asked again: what followed it goes, its images stay as given', () => {
    const history = editQuestion(conversation, 'q1', 'better question', ['https://example.com/a.png']);
    expect(ids(history)).toEqual(['q1']);
    expect(history![0]).toMatchObject({ content: 'better question', images: ['https://example.com/a.png'] });
    expect(editQuestion([{ ...message('q', 'user'), images: ['x'] }], 'q', 'no images', [])![0]).not.toHaveProperty('images');
    expect(editQuestion(conversation, 'a1', 'x', [])).toBeNull();
    expect(editQuestion(conversation, 'missing', 'x', [])).toBeNull();
  });

  it('only the last reply, answering a question, may be regenerated, from the history before it', () => {
    expect(regenerableReplyId(conversation)).toBe('a2');
    expect(ids(historyBeforeReply(conversation, 'a2'))).toEqual(['q1', 'a1', 'q2']);
    expect(historyBeforeReply(conversation, 'a1')).toBeNull();
    expect(regenerableReplyId(conversation.slice(0, 3))).toBeNull();
    expect(regenerableReplyId([message('x', 'assistant')])).toBeNull();
  });

  it('deleting a question takes its reply; deleting a reply leaves its question', () => {
    expect(ids(deleteMessage(conversation, 'q1'))).toEqual(['q2', 'a2']);
    expect(ids(deleteMessage(conversation, 'a1'))).toEqual(['q1', 'q2', 'a2']);
    expect(ids(deleteMessage(conversation.slice(0, 3), 'q2'))).toEqual(['q1', 'a1']);
    expect(deleteMessage(conversation, 'missing')).toBe(conversation);
  });

  it('copies the text and the image URLs', () => {
    expect(copyText({ ...message('q', 'user', 'see'), images: ['https://example.com/a.png'] })).toBe('see\nhttps://example.com/a.png');
    expect(copyText({ ...message('q', 'user', ''), images: ['https://example.com/a.png'] })).toBe('https://example.com/a.png');
  });
});

describe('image input', () => {
  it('takes http(s) URLs and image data: URLs, nothing else', () => {
    expect(normalizeImageUrl('  https://example.com/cat.png ')).toBe('https://example.com/cat.png');
    expect(normalizeImageUrl('data:image/png;base64,iVBORw0KGgo=')).toBe('data:image/png;base64,iVBORw0KGgo=');
    for (const bad of ['', 'cat.png', 'ftp://example.com/a.png', 'javascript:alert(1)', 'data:text/html;base64,PGI+', 'https://']) {
      expect(normalizeImageUrl(bad)).toBeNull();
    }
  });

  it(`refuses a bad URL, the same image twice and more than ${MAX_IMAGES_PER_MESSAGE}`, () => {
    expect(addImage([], 'nope')).toEqual({ problem: 'badImageUrl' });
    expect(addImage(['https://a.example/x.png'], 'https://a.example/x.png')).toEqual({ problem: 'duplicateImage' });
    const full = Array.from({ length: MAX_IMAGES_PER_MESSAGE }, (_, index) => `https://a.example/${index}.png`);
    expect(addImage(full, 'https://a.example/more.png')).toEqual({ problem: 'tooManyImages' });
    expect(addImage([], 'https://a.example/x.png')).toEqual({ images: ['https://a.example/x.png'] });
    expect(imageLabel('https://a.example/dir/my%20cat.png?size=2')).toBe('my cat.png');
    expect(imageLabel('https://a.example/')).toBe('a.example');
    expect(imageLabel('data:image/png;base64,AAAA')).toBeNull();
  });
});

describe('the debug record', () => {
  it('keeps the events as received, the status, the time to the first text and the total', () => {
    let record = startRecord({ model: 'm' }, false, 1000);
    record = addEvents(addEvents(record, ['{"choices":[{"delta":{"content":"Hi"}}]}']), ['[DONE]']);
    record = markFirstToken(markFirstToken(record, 1250), 1900);
    record = finishRecord({ ...record, status: 200 }, 'done', 2500);
    expect(record).toMatchObject({ status: 200, firstTokenMs: 250, totalMs: 1500, outcome: 'done', droppedEvents: 0 });
    expect(eventsText(record)).toBe('data: {"choices":[{"delta":{"content":"Hi"}}]}\n\ndata: [DONE]');
    expect(finishRecord(record, 'error', 3000, 'boom')).toMatchObject({ outcome: 'error', error: 'boom' });
  });

  it(`keeps the newest ${MAX_DEBUG_EVENTS} events and counts the others`, () => {
    let record = startRecord({}, false, 0);
    record = addEvents(record, ['a', 'b']);
    record = addEvents(
      record,
      Array.from({ length: MAX_DEBUG_EVENTS + 1 }, (_, index) => String(index)),
    );
    expect(record.events).toHaveLength(MAX_DEBUG_EVENTS);
    expect(record.events[0]).toBe('1');
    expect(record.droppedEvents).toBe(3);
  });

  it('formats timings and bodies', () => {
    expect([formatDuration(undefined), formatDuration(850.4), formatDuration(1250)]).toEqual([null, '850 ms', '1.25 s']);
    expect(prettyBody('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyBody('plain text')).toBe('plain text');
  });

  it('sends a custom body only when it is a JSON object with messages', () => {
    expect(parseCustomBody('{bad')).toEqual({ problem: 'badJson' });
    expect(parseCustomBody('[1]')).toEqual({ problem: 'notObject' });
    expect(parseCustomBody('{"model":"m","messages":[]}')).toEqual({ problem: 'noMessages' });
    expect(parseCustomBody('{"model":"m","stream":false,"messages":[{"role":"user","content":"hi"}]}')).toEqual({
      body: { model: 'm', stream: false, messages: [{ role: 'user', content: 'hi' }] },
    });
  });
});
