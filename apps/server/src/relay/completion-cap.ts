import type { ChatRequest } from '@modelgate/protocol';
import type { RelayInput } from './relay-input.js';

/** The field an OpenAI chat request limits its output with. */
export type ChatOutputLimitField = 'max_tokens' | 'max_completion_tokens';

/** Claude's smallest thinking budget; a capped call gets at most half of its cap to think. */
const MIN_THINKING_BUDGET = 1024;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The call as it goes upstream when its payer's balance pays for `cap` output tokens (per choice)
 * and not for its full bound: the client's request with its output limit lowered (or set) in the
 * field its format and endpoint use, and any thinking budget brought inside the cap. Made once per
 * call and limit field, only for capped calls: the hot path never gets here.
 */
export function cappedInput(input: RelayInput, cap: number, chatField: ChatOutputLimitField): RelayInput {
  if (input.body.kind !== 'json') return input;
  const sent = input.body.json;
  if (input.canonical !== undefined) {
    const canonical: ChatRequest = { ...input.canonical };
    delete canonical.max_tokens;
    delete canonical.max_completion_tokens;
    canonical[chatField] = cap;
    const json =
      input.format === 'anthropic' ? cappedAnthropic(sent, cap) : input.format === 'responses' ? { ...sent, max_output_tokens: cap } : cappedGemini(sent, cap);
    // A Responses request's own fields stay what its prompt is counted from.
    const fields = input.format === 'responses' ? json : canonical;
    return { ...input, canonical, fields, body: { kind: 'json', json, raw: JSON.stringify(json) }, maxTokens: cap, outputCap: cap };
  }
  const json: Record<string, unknown> = { ...sent };
  switch (input.spec.endpoint) {
    case 'chat': {
      const named = ['max_completion_tokens', 'max_tokens'].filter((field) => json[field] !== undefined);
      for (const field of named.length > 0 ? named : [chatField]) json[field] = cap;
      break;
    }
    case 'completions':
      json.max_tokens = cap;
      break;
    case 'responses':
      json.max_output_tokens = cap;
      break;
    default:
      return input;
  }
  return { ...input, fields: json, body: { kind: 'json', json, raw: JSON.stringify(json) }, maxTokens: cap, outputCap: cap };
}

/** Anthropic's max_tokens counts the thinking: the budget shrinks to half the cap, or thinking goes. */
function cappedAnthropic(sent: Record<string, unknown>, cap: number): Record<string, unknown> {
  const json: Record<string, unknown> = { ...sent, max_tokens: cap };
  const thinking = json.thinking;
  if (isObject(thinking) && thinking.type === 'enabled' && typeof thinking.budget_tokens === 'number') {
    const budget = Math.min(thinking.budget_tokens, Math.floor(cap / 2));
    if (budget < MIN_THINKING_BUDGET) delete json.thinking;
    else json.thinking = { ...thinking, budget_tokens: budget };
  }
  return json;
}

/** Gemini's maxOutputTokens, with a positive thinking budget kept within half of it. */
function cappedGemini(sent: Record<string, unknown>, cap: number): Record<string, unknown> {
  const config: Record<string, unknown> = isObject(sent.generationConfig) ? { ...sent.generationConfig } : {};
  config.maxOutputTokens = cap;
  const thinking = config.thinkingConfig;
  if (isObject(thinking) && typeof thinking.thinkingBudget === 'number' && thinking.thinkingBudget > 0) {
    config.thinkingConfig = { ...thinking, thinkingBudget: Math.min(thinking.thinkingBudget, Math.floor(cap / 2)) };
  }
  return { ...sent, generationConfig: config };
}

/** The choices a call asks for (`n`): each may run to the output limit. */
export function choicesOf(input: RelayInput): number {
  if (input.spec.endpoint !== 'chat' && input.spec.endpoint !== 'completions') return 1;
  const n = input.fields.n;
  return typeof n === 'number' && Number.isInteger(n) && n > 1 ? Math.min(n, 128) : 1;
}
