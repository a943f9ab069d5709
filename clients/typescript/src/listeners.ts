// A tiny listener set: the client's events without `EventEmitter`'s "throw when nobody listens
// to `error`" rule, which would turn a server exit into a crash.

/** A set of listeners for one kind of event. */
export class Listeners<T> {
  private readonly listeners = new Set<(value: T) => void>();

  /** Adds a listener; the returned function removes it. */
  add(listener: (value: T) => void): () => void {
    // Wrap so that adding the same function twice registers two independent subscriptions.
    const entry = (value: T): void => listener(value);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  /** How many listeners are registered. */
  get size(): number {
    return this.listeners.size;
  }

  /** Calls every listener with `value`; a listener that throws is reported to `onError`. */
  emit(value: T, onError: (error: unknown) => void): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (error) {
        onError(error);
      }
    }
  }
}
