import { expect, type Page } from '@playwright/test';

/**
 * Records every toast the console shows on this page from now on (its text when it appears, or as
 * it last read when it goes). A Semi toast fades after 3 s; on a busy machine the check that follows an
 * action can first look after that, and then it failed although the toast had been shown. A test
 * asks the record instead (expectToast), which does not depend on when it looks.
 */
export async function recordToasts(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const shown: { text: string; element: Element }[] = [];
    const byElement = new WeakMap<Element, { text: string; element: Element }>();
    (window as unknown as { __shownToasts: typeof shown }).__shownToasts = shown;
    const note = (node: Node, removed: boolean) => {
      if (!(node instanceof Element)) return;
      const toasts = node.matches('.semi-toast-content') ? [node] : [...node.querySelectorAll('.semi-toast-content')];
      for (const toast of toasts) {
        const text = toast.textContent ?? '';
        const known = byElement.get(toast);
        if (known) {
          // Its text as it was last, in case it was filled in after it appeared.
          if (removed && text !== '') known.text = text;
          continue;
        }
        const entry = { text, element: toast };
        byElement.set(toast, entry);
        shown.push(entry);
      }
    };
    new MutationObserver((mutations) => {
      for (const mutation of mutations) {
        for (const node of mutation.addedNodes) note(node, false);
        for (const node of mutation.removedNodes) note(node, true);
      }
    }).observe(document, { childList: true, subtree: true });
  });
}

/**
 * Waits until a toast with this text (a substring, or a match of the pattern) has been shown since
 * recordToasts, and takes it off the record: the same text expected twice needs two toasts.
 */
export async function expectToast(page: Page, text: string | RegExp, timeout = 10_000): Promise<void> {
  const pattern = typeof text === 'string' ? undefined : { source: text.source, flags: text.flags };
  const needle = typeof text === 'string' ? text : '';
  await expect
    .poll(
      () =>
        page.evaluate(
          ({ needle, pattern }) => {
            const shown = (window as unknown as { __shownToasts?: { text: string; element: Element }[] }).__shownToasts;
            if (!shown) throw new Error('toasts are not recorded on this page: call recordToasts(page) before it loads');
            const matches = (value: string) => (pattern ? new RegExp(pattern.source, pattern.flags).test(value) : value.includes(needle));
            // A toast still on screen is read as it is now; one gone, as it last read.
            const index = shown.findIndex((entry) => matches(entry.element.isConnected ? (entry.element.textContent ?? '') : entry.text));
            if (index === -1) return false;
            shown.splice(index, 1);
            return true;
          },
          { needle, pattern },
        ),
      { message: `a toast saying ${String(text)}`, timeout },
    )
    .toBe(true);
}
