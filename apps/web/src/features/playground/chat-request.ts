import { DEFAULT_MODEL, normalizeTemperature, type ChatMessage, type PlaygroundSettings } from './conversation';

/** OpenAI's multimodal content: text and images by URL (http(s) or data:). */
export type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export interface RequestMessage {
  role: 'system' | 'user' | 'assistant';
  /** A string, or for a question with images, its text part followed by one part per image. */
  content: string | ContentPart[];
}

/** The body of `POST /pg/chat/completions` (new-api's playground payload). */
export interface PlaygroundRequest {
  messages: RequestMessage[];
  stream: true;
  model: string;
  group: string;
  /** Absent when the sidebar says 0 (unset). */
  max_tokens?: number;
  temperature: number;
}

/** Why a message cannot be sent yet; the page shows the matching text. */
export type RequestProblem = 'noModel' | 'emptyMessage' | 'badMaxTokens';

/** A question's content: plain text, or with images OpenAI's array of a text part and `image_url` parts. */
export function questionContent(message: Pick<ChatMessage, 'content' | 'images'>): RequestMessage['content'] {
  const images = message.images ?? [];
  if (images.length === 0) return message.content;
  const parts: ContentPart[] = message.content.trim() === '' ? [] : [{ type: 'text', text: message.content }];
  for (const url of images) parts.push({ type: 'image_url', image_url: { url } });
  return parts;
}

/**
 * The conversation as the model should see it: the system prompt (when not blank), then every
 * user message and every reply that holds text, stopped ones included (the user saw that text).
 * A failed reply is left out: its text is an error, not something the assistant said.
 */
export function conversationForModel(history: ChatMessage[], systemPrompt: string): PlaygroundRequest['messages'] {
  const messages: PlaygroundRequest['messages'] = [];
  if (systemPrompt.trim() !== '') messages.push({ role: 'system', content: systemPrompt });
  for (const message of history) {
    if (message.role === 'user') messages.push({ role: 'user', content: questionContent(message) });
    else if (message.status !== 'error' && message.status !== 'streaming' && message.content !== '') {
      messages.push({ role: 'assistant', content: message.content });
    }
  }
  return messages;
}

/** A question needs text or at least one image. */
export function checkRequest(settings: PlaygroundSettings, text: string, imageCount = 0): RequestProblem | null {
  if (text.trim() === '' && imageCount === 0) return 'emptyMessage';
  if (settings.model === '') return 'noModel';
  if (!Number.isInteger(settings.maxTokens) || settings.maxTokens < 0) return 'badMaxTokens';
  return null;
}

/** Builds the request for `history` (which ends with the user's new message). */
export function buildChatRequest(settings: PlaygroundSettings, history: ChatMessage[]): PlaygroundRequest {
  const request: PlaygroundRequest = {
    messages: conversationForModel(history, settings.systemPrompt),
    stream: true,
    model: settings.model,
    group: settings.group,
    temperature: normalizeTemperature(settings.temperature),
  };
  if (settings.maxTokens > 0) request.max_tokens = settings.maxTokens;
  return request;
}

/** The model to preselect: the saved one while the user still has it, else gpt-4o-mini when offered, else the first. */
export function chooseModel(models: string[], saved: string): string {
  if (saved !== '' && models.includes(saved)) return saved;
  if (models.includes(DEFAULT_MODEL)) return DEFAULT_MODEL;
  return models[0] ?? '';
}

/** The group names with the user's own group first, as new-api's playground lists them. */
export function orderGroups(groups: string[], userGroup: string | undefined): string[] {
  if (!userGroup || !groups.includes(userGroup)) return groups;
  return [userGroup, ...groups.filter((group) => group !== userGroup)];
}

/** The group to preselect: the saved one while still usable, else the first listed (the user's own), else '' (the user's group). */
export function chooseGroup(orderedGroups: string[], saved: string): string {
  if (saved !== '' && orderedGroups.includes(saved)) return saved;
  return orderedGroups[0] ?? '';
}
