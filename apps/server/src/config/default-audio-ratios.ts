/**
 * What an audio token costs, new-api's AudioRatio and AudioCompletionRatio (setting/ratio_setting):
 * an audio prompt token costs AudioRatio × the model ratio, an audio output token AudioRatio ×
 * AudioCompletionRatio × the model ratio (a text output token: CompletionRatio × it). A model a map
 * does not name has 1, as in new-api; names are matched exactly.
 *
 * new-api's entries, and the realtime models OpenAI prices since, from OpenAI's per-million prices
 * (text in, audio in, audio out): gpt-4o-realtime-preview $5, $40, $80 (8 and 2);
 * gpt-4o-mini-realtime-preview and gpt-realtime-mini $0.60, $10, $20 (16.67 and 2); gpt-realtime
 * $4, $32, $64 (8 and 2).
 */
export const DEFAULT_AUDIO_RATIO: Readonly<Record<string, number>> = {
  'gpt-4o-audio-preview': 16,
  'gpt-4o-mini-audio-preview': 66.67,
  'gpt-4o-realtime-preview': 8,
  'gpt-4o-realtime-preview-2024-10-01': 8,
  'gpt-4o-realtime-preview-2024-12-17': 8,
  'gpt-4o-realtime-preview-2025-06-03': 8,
  'gpt-4o-mini-realtime-preview': 16.67,
  'gpt-4o-mini-realtime-preview-2024-12-17': 16.67,
  'gpt-realtime': 8,
  'gpt-realtime-2025-08-28': 8,
  'gpt-realtime-mini': 16.67,
  'gpt-realtime-mini-2025-10-06': 16.67,
  'gpt-4o-mini-tts': 25,
};

export const DEFAULT_AUDIO_COMPLETION_RATIO: Readonly<Record<string, number>> = {
  'gpt-4o-realtime': 2,
  'gpt-4o-mini-realtime': 2,
  'gpt-4o-realtime-preview': 2,
  'gpt-4o-realtime-preview-2024-10-01': 2,
  'gpt-4o-realtime-preview-2024-12-17': 2,
  'gpt-4o-realtime-preview-2025-06-03': 2,
  'gpt-4o-mini-realtime-preview': 2,
  'gpt-4o-mini-realtime-preview-2024-12-17': 2,
  'gpt-realtime': 2,
  'gpt-realtime-2025-08-28': 2,
  'gpt-realtime-mini': 2,
  'gpt-realtime-mini-2025-10-06': 2,
  'gpt-4o-mini-tts': 1,
  'tts-1': 0,
  'tts-1-hd': 0,
  'tts-1-1106': 0,
  'tts-1-hd-1106': 0,
};
