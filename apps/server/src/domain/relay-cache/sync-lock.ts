/**
 * Runs tasks one at a time. The batch flush and the cache reloads take it so that a reload never
 * reads the database between a flush's removal of pending deltas and their commit.
 */
export class SyncLock {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
