import { toDisposable, type Disposable } from './disposable.ts';

export type Listener<T> = (value: T) => void;

/** A tiny typed event: listeners that throw are isolated so one bad subscriber cannot stop the others. */
export class Emitter<T> {
  private readonly listeners = new Set<Listener<T>>();
  readonly event = (listener: Listener<T>): Disposable => {
    this.listeners.add(listener);
    return toDisposable(() => {
      this.listeners.delete(listener);
    });
  };
  fire(value: T): void {
    for (const l of [...this.listeners]) {
      try {
        l(value);
      } catch (e) {
        queueMicrotask(() => {
          throw e;
        });
      }
    }
  }
  get size(): number {
    return this.listeners.size;
  }
  clear(): void {
    this.listeners.clear();
  }
}
