// `runTurn`: start a turn and follow its notifications until `turn/completed`.

import { ReplayLog } from "./async-queue.js";
import type { NotificationOf, Protocol, StableProtocol, TurnOf } from "./protocol.js";

/**
 * A running turn, from `AppServerClient.runTurn`.
 *
 * Iterating it yields the turn's notifications in order, from `turn/start`'s answer up to and
 * including `turn/completed`; every iteration replays from the start, so iterating late loses nothing.
 * If the turn cannot start or the connection ends first, iteration throws and `completed` rejects.
 */
export interface TurnRun<P extends Protocol = StableProtocol> extends AsyncIterable<NotificationOf<P>> {
  /** The thread the turn runs on. */
  readonly threadId: string;
  /** The turn as `turn/start` answered it (`status: "inProgress"`). */
  readonly started: Promise<TurnOf<P>>;
  /** The final turn from `turn/completed` (`completed`, `interrupted` or `failed`). */
  readonly completed: Promise<TurnOf<P>>;
  /** The turn's notifications received so far. */
  readonly notifications: readonly NotificationOf<P>[];
  /** Sends `turn/interrupt` for this turn; `completed` then resolves with status `interrupted`. */
  interrupt(): Promise<void>;
}

/** A raw notification as the connection delivers it. */
export interface RawNotification {
  /** The notification method. */
  method: string;
  /** Its params, not yet narrowed. */
  params: unknown;
}

/** Where notifications go: the client feeds every sink until the connection ends. */
export interface NotificationSink {
  /** One notification, in wire order. */
  push(notification: RawNotification): void;
  /** The connection ended; `error` is set unless the client closed it. */
  close(error: Error | undefined): void;
}

/** What a turn run needs from the client. */
export interface TurnHost {
  /** Registers a sink; the returned function removes it. */
  subscribe(sink: NotificationSink): () => void;
  /** Sends a request with untyped params (the typed client checked them). */
  request(method: "turn/start" | "turn/interrupt", params: object): Promise<unknown>;
}

/** Starts a turn with `params` (already merged with `threadId` and `input`) and follows it. */
export function startTurnRun<P extends Protocol>(
  host: TurnHost,
  params: { threadId: string } & object,
): TurnRun<P> {
  return new TurnFollower<P>(host, params);
}

class TurnFollower<P extends Protocol> implements TurnRun<P>, NotificationSink {
  readonly threadId: string;
  readonly started: Promise<TurnOf<P>>;
  readonly completed: Promise<TurnOf<P>>;
  private readonly log = new ReplayLog<NotificationOf<P>>();
  private turnId: string | undefined;
  // Notifications that arrived before `turn/start` answered, when the turn id was still unknown.
  private early: RawNotification[] = [];
  private finished = false;
  private readonly unsubscribe: () => void;
  private resolveStarted!: (turn: TurnOf<P>) => void;
  private rejectStarted!: (error: unknown) => void;
  private resolveCompleted!: (turn: TurnOf<P>) => void;
  private rejectCompleted!: (error: unknown) => void;

  constructor(
    private readonly host: TurnHost,
    params: { threadId: string } & object,
  ) {
    this.threadId = params.threadId;
    this.started = new Promise((resolve, reject) => {
      this.resolveStarted = resolve;
      this.rejectStarted = reject;
    });
    this.completed = new Promise((resolve, reject) => {
      this.resolveCompleted = resolve;
      this.rejectCompleted = reject;
    });
    // Callers may only iterate, or only await one of the promises: a failure must not become an
    // unhandled rejection on the promise they ignore.
    this.started.catch(() => {});
    this.completed.catch(() => {});
    // Subscribe before sending, so that nothing between the request and its answer is missed.
    this.unsubscribe = host.subscribe(this);
    host.request("turn/start", params).then(
      (result) => this.onStarted(result),
      (error: unknown) => this.fail(error),
    );
  }

  get notifications(): readonly NotificationOf<P>[] {
    return this.log.values;
  }

  [Symbol.asyncIterator](): AsyncIterator<NotificationOf<P>> {
    return this.log[Symbol.asyncIterator]();
  }

  async interrupt(): Promise<void> {
    const turn = await this.started;
    await this.host.request("turn/interrupt", { threadId: this.threadId, turnId: turn.id });
  }

  push(notification: RawNotification): void {
    if (this.finished) return;
    if (this.turnId === undefined) this.early.push(notification);
    else this.consider(notification);
  }

  close(error: Error | undefined): void {
    this.fail(error ?? new Error("the connection closed before the turn completed"));
  }

  private onStarted(result: unknown): void {
    const turn = (result as { turn: TurnOf<P> }).turn;
    this.turnId = turn.id;
    this.resolveStarted(turn);
    const early = this.early;
    this.early = [];
    for (const notification of early) this.consider(notification);
  }

  private consider(notification: RawNotification): void {
    if (this.finished || !this.belongs(notification.params)) return;
    this.log.push(notification as NotificationOf<P>);
    if (notification.method === "turn/completed") {
      this.finished = true;
      this.unsubscribe();
      this.resolveCompleted((notification.params as { turn: TurnOf<P> }).turn);
      this.log.end();
    }
  }

  // A notification belongs to the turn when it names the turn (`turnId` or `turn.id`), or names
  // no turn but the turn's thread (`thread/status/changed`, `serverRequest/resolved`).
  private belongs(params: unknown): boolean {
    if (typeof params !== "object" || params === null) return false;
    const fields = params as { turnId?: unknown; turn?: { id?: unknown }; threadId?: unknown };
    const turnId = typeof fields.turnId === "string" ? fields.turnId : fields.turn?.id;
    if (typeof turnId === "string") return turnId === this.turnId;
    return fields.threadId === this.threadId;
  }

  private fail(error: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.unsubscribe();
    this.rejectStarted(error);
    this.rejectCompleted(error);
    this.log.fail(error);
  }
}
