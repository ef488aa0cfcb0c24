/** Ratios remembered per model. */
const WINDOW = 32;
/** A model's prompt bound before it has taught one: our count times this, plus UNLEARNED_OVERHEAD tokens. */
export const UNLEARNED_RATIO = 1.5;
export const UNLEARNED_OVERHEAD = 16;

class Ratios {
  private readonly values = new Float64Array(WINDOW);
  private next = 0;
  private filled = 0;
  /** The largest of the remembered ratios, kept so a read costs nothing. */
  highest = 0;

  add(ratio: number): void {
    const dropped = this.values[this.next]!;
    this.values[this.next] = ratio;
    this.next = (this.next + 1) % WINDOW;
    this.filled = Math.min(this.filled + 1, WINDOW);
    if (ratio >= this.highest) this.highest = ratio;
    else if (dropped === this.highest) {
      let highest = 0;
      for (let index = 0; index < this.filled; index += 1) highest = Math.max(highest, this.values[index]!);
      this.highest = highest;
    }
  }
}

interface ModelMargins {
  /** The upstream's prompt tokens per token gpt-tokenizer counted for the same prompt. */
  counted: Ratios;
  /** The upstream's prompt tokens per byte of the request. */
  bytes: Ratios;
}

/**
 * How many prompt tokens each model's upstreams report against what the relay can see of the
 * prompt before the call: our own count (Claude's and Gemini's tokenizers count more than
 * o200k_base, images and tool definitions add tokens, chat templates add a few per turn), and
 * the request's size. A reservation multiplies its prompt by the largest ratio of the model's
 * last 32 answers on this process, so a prompt the upstream counts higher is held for in full.
 */
export class PromptMargins {
  private readonly byModel = new Map<string, ModelMargins>();

  /**
   * One answer's prompt tokens as the upstream reported them, against the request's byte size
   * and, when the call counted its prompt, that count.
   */
  record(model: string, reported: number, bytes: number, counted: number | undefined): void {
    if (!(reported > 0)) return;
    let margins = this.byModel.get(model);
    if (margins === undefined) {
      if (this.byModel.size >= 10_000) this.byModel.clear();
      this.byModel.set(model, (margins = { counted: new Ratios(), bytes: new Ratios() }));
    }
    if (bytes > 0) margins.bytes.add(reported / bytes);
    if (counted !== undefined && counted > 0) margins.counted.add(reported / counted);
  }

  /**
   * An upper bound of the prompt tokens the upstream will report for a prompt we counted: our count
   * times the largest ratio seen, or, before the model has answered a counted call on this process,
   * times UNLEARNED_RATIO plus UNLEARNED_OVERHEAD (other tokenizers count up to about a third more,
   * chat templates add a few tokens a turn).
   */
  boundOfCount(model: string, counted: number): number {
    const highest = this.byModel.get(model)?.counted.highest ?? 0;
    if (highest === 0) return Math.ceil(counted * UNLEARNED_RATIO) + UNLEARNED_OVERHEAD;
    return Math.ceil(counted * Math.max(1, highest) - 1e-6);
  }

  /** What to multiply the request's byte size by for an upper bound of its prompt tokens: at least 1. */
  ofBytes(model: string): number {
    return Math.max(1, this.byModel.get(model)?.bytes.highest ?? 0);
  }
}
