export interface Disposable {
  dispose(): void | Promise<void>;
}

export function toDisposable(fn: () => void | Promise<void>): Disposable {
  let done = false;
  return {
    dispose() {
      if (done) return;
      done = true;
      return fn();
    },
  };
}

/** Disposes its members in reverse order of addition, so dependants go before what they depend on. */
export class DisposableStack implements Disposable {
  private readonly items: Disposable[] = [];
  add<T extends Disposable>(item: T): T {
    this.items.push(item);
    return item;
  }
  async dispose(): Promise<void> {
    const errors: unknown[] = [];
    while (this.items.length > 0) {
      const item = this.items.pop()!;
      try {
        await item.dispose();
      } catch (e) {
        errors.push(e);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, 'some disposables failed');
  }
}
