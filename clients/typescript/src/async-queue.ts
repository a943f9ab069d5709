// Push-to-pull adapters: values arrive from the connection's read loop and are consumed with
// `for await`. Both buffer from creation, so nothing is lost between creating and iterating.

/** How a stream of values ended: normally, or with an error to rethrow to readers. */
type Ending = { kind: "open" } | { kind: "ended" } | { kind: "failed"; error: unknown };

/**
 * A single-reader queue: values are buffered until read and dropped once read.
 * `end()` finishes iteration after the buffered values, `fail(error)` throws after them.
 */
export class AsyncQueue<T> implements AsyncIterableIterator<T> {
  private readonly buffered: T[] = [];
  private ending: Ending = { kind: "open" };
  private waiter: (() => void) | undefined;

  /** `onReturn` runs once when the reader stops early (`break`) or the queue finishes. */
  constructor(private readonly onReturn: () => void = () => {}) {}

  /** Adds a value; ignored after `end()`/`fail()`. */
  push(value: T): void {
    if (this.ending.kind !== "open") return;
    this.buffered.push(value);
    this.wake();
  }

  /** Finishes iteration once the buffered values are read. */
  end(): void {
    this.finish({ kind: "ended" });
  }

  /** Makes iteration throw `error` once the buffered values are read. */
  fail(error: unknown): void {
    this.finish({ kind: "failed", error });
  }

  /** Reads the next value, waiting for one if necessary. */
  async next(): Promise<IteratorResult<T, undefined>> {
    for (;;) {
      if (this.buffered.length > 0) return { done: false, value: this.buffered.shift() as T };
      if (this.ending.kind === "ended") return { done: true, value: undefined };
      if (this.ending.kind === "failed") {
        const { error } = this.ending;
        // Throw once; later reads just report the end.
        this.ending = { kind: "ended" };
        throw error;
      }
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }

  /** Stops reading: drops the buffer and detaches from the source. */
  async return(): Promise<IteratorResult<T, undefined>> {
    this.buffered.length = 0;
    this.finish({ kind: "ended" });
    return { done: true, value: undefined };
  }

  /** The queue is its own iterator (single reader). */
  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  private finish(ending: Ending): void {
    if (this.ending.kind !== "open") return;
    this.ending = ending;
    this.onReturn();
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}

/**
 * A multi-reader log: every reader sees every value from the first one, whenever it starts.
 * Meant for bounded streams such as the notifications of one turn.
 */
export class ReplayLog<T> implements AsyncIterable<T> {
  /** Every value pushed so far, in order. */
  readonly values: T[] = [];
  private ending: Ending = { kind: "open" };
  private readonly waiters = new Set<() => void>();

  /** Appends a value; ignored after `end()`/`fail()`. */
  push(value: T): void {
    if (this.ending.kind !== "open") return;
    this.values.push(value);
    this.wake();
  }

  /** Finishes every reader once it has read all values. */
  end(): void {
    if (this.ending.kind !== "open") return;
    this.ending = { kind: "ended" };
    this.wake();
  }

  /** Makes every reader throw `error` once it has read all values. */
  fail(error: unknown): void {
    if (this.ending.kind !== "open") return;
    this.ending = { kind: "failed", error };
    this.wake();
  }

  /** Starts a reader at the first value. */
  [Symbol.asyncIterator](): AsyncIterator<T> {
    let index = 0;
    return {
      next: async (): Promise<IteratorResult<T, undefined>> => {
        for (;;) {
          // A reader that stopped (or already threw) stays finished.
          if (index === Number.POSITIVE_INFINITY) return { done: true, value: undefined };
          if (index < this.values.length) return { done: false, value: this.values[index++] as T };
          if (this.ending.kind === "ended") return { done: true, value: undefined };
          if (this.ending.kind === "failed") {
            index = Number.POSITIVE_INFINITY;
            throw this.ending.error;
          }
          await new Promise<void>((resolve) => this.waiters.add(resolve));
        }
      },
      return: async (): Promise<IteratorResult<T, undefined>> => {
        index = Number.POSITIVE_INFINITY;
        return { done: true, value: undefined };
      },
    };
  }

  private wake(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const waiter of waiters) waiter();
  }
}
