import type { OptionKey } from '../../config/option-registry.js';
import type { OptionService } from '../options/option-service.js';
import { parseSensitiveWords, WordMatcher } from './word-matcher.js';

/** What a relay checks answers with, when it checks them. */
export interface CompletionCheck {
  matcher: WordMatcher;
  /** StopOnSensitiveEnabled: end the answer at the word (else the word is masked and the answer goes on). */
  stop: boolean;
}

const SWITCHES: ReadonlySet<OptionKey> = new Set([
  'CheckSensitiveEnabled',
  'CheckSensitiveOnPromptEnabled',
  'CheckSensitiveOnCompletionEnabled',
  'StopOnSensitiveEnabled',
  'SensitiveWords',
]);

/**
 * The sensitive-word options as the relay reads them on every call: a matcher for prompts and one
 * for answers, each undefined while that check is off or the list is empty, so a call with the
 * filter off does no work beyond reading a field. The matcher is built once per SensitiveWords
 * value, when the option changes (on this node at once, on others at their option sync), never
 * per request.
 */
export class SensitiveFilter {
  /** Set while CheckSensitiveEnabled and CheckSensitiveOnPromptEnabled are on and words are listed. */
  prompt: WordMatcher | undefined;
  /** Set while CheckSensitiveEnabled and CheckSensitiveOnCompletionEnabled are on and words are listed. */
  completion: CompletionCheck | undefined;
  private words: string | undefined;
  private matcher: WordMatcher | undefined;

  constructor(private readonly options: OptionService) {
    this.update();
    options.onChange((key) => {
      if (SWITCHES.has(key)) this.update();
    });
  }

  private update(): void {
    const { options } = this;
    const words = options.string('SensitiveWords');
    if (words !== this.words) {
      this.words = words;
      const matcher = new WordMatcher(parseSensitiveWords(words));
      this.matcher = matcher.size > 0 ? matcher : undefined;
    }
    const on = options.bool('CheckSensitiveEnabled') ? this.matcher : undefined;
    this.prompt = on && options.bool('CheckSensitiveOnPromptEnabled') ? on : undefined;
    this.completion = on && options.bool('CheckSensitiveOnCompletionEnabled') ? { matcher: on, stop: options.bool('StopOnSensitiveEnabled') } : undefined;
  }
}
