/** Answers remembered per model. */
const WINDOW = 32;

/**
 * How long a model's answers have recently been, for reserving a call that sets no max_tokens:
 * the longest of the model's last 32 answers on this process. A reservation sized this way admits
 * as many calls as the balance really pays for (a fixed 500-token guess refused most of them),
 * while an answer longer than every recent one can still cost more than was held.
 */
export class CompletionEstimates {
  private readonly byModel = new Map<string, { tokens: Uint32Array; next: number; filled: number }>();

  record(model: string, completionTokens: number): void {
    let entry = this.byModel.get(model);
    if (!entry) {
      // Bounded: a flood of made-up model names cannot grow this without end.
      if (this.byModel.size >= 10_000) this.byModel.clear();
      this.byModel.set(model, (entry = { tokens: new Uint32Array(WINDOW), next: 0, filled: 0 }));
    }
    entry.tokens[entry.next] = Math.max(0, Math.min(completionTokens, 0xffffffff));
    entry.next = (entry.next + 1) % WINDOW;
    entry.filled = Math.min(entry.filled + 1, WINDOW);
  }

  /** The longest recent answer, or undefined before the model has answered on this process. */
  longestRecent(model: string): number | undefined {
    const entry = this.byModel.get(model);
    if (!entry || entry.filled === 0) return undefined;
    let longest = 0;
    for (let index = 0; index < entry.filled; index += 1) longest = Math.max(longest, entry.tokens[index]!);
    return longest;
  }
}
