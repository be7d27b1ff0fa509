import type { KeyCheck, KeyVerdict } from '../access.js';
import type { ApiClient, ApiRequest } from '../http/client.js';
import { ApiError, AuthenticationError, ConnectionError, NotFoundError, NotJsonError, PermissionError } from '../http/errors.js';
import type { Logger } from '../log.js';

/**
 * How long a verdict is reused. An accepted key is asked about again after 5 minutes, so a key
 * revoked since gets no new session for longer than that (its open sessions' calls are refused by
 * the API itself). A refused key is remembered for 1 minute: a revoked key never comes back, and a
 * key just created but not yet known everywhere is let in on a retry soon after. A check that got
 * no usable answer is not remembered: the next initialize asks again.
 */
const ACCEPTED_FOR_MS = 5 * 60_000;
const REFUSED_FOR_MS = 60_000;
/**
 * Checks running at once, for all keys together. Made-up keys then cost the API a few requests at a
 * time, and a real tenant arriving during a flood of them waits behind at most the queue below,
 * never for a session slot: checks hold no slot.
 */
const CHECKS_AT_ONCE = 8;
/** Checks waiting for their turn; beyond it an initialize is answered 503 at once rather than queued without bound. */
const MAX_WAITING_CHECKS = 1_000;
/** Verdicts kept, oldest dropped first, so a stream of made-up keys cannot grow the memory. */
const MAX_VERDICTS = 10_000;
/** One read every key with the read scope may make, and the cheapest: the agent list. */
const PROBE: ApiRequest = { method: 'GET', path: '/v2/bots/public', read: true, backoff: false };

/**
 * Asks the API whether a key is valid before a session is opened for it, through the one HTTP
 * core (so the request passes the key's rate budget like any other), with one check in flight per
 * key however many initializes arrive at once, and a bounded number of checks running at once.
 */
export class KeyVerifier implements KeyCheck {
  private readonly verdicts = new Map<string, { verdict: KeyVerdict; until: number }>();
  private readonly checking = new Map<string, Promise<KeyVerdict>>();
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly client: ApiClient,
    private readonly logger: Logger,
  ) {}

  verify(key: string, keyHash: string): Promise<KeyVerdict> {
    const known = this.verdicts.get(keyHash);
    if (known && known.until > Date.now()) return Promise.resolve(known.verdict);
    if (known) this.verdicts.delete(keyHash);
    let pending = this.checking.get(keyHash);
    if (!pending) {
      pending = this.check(key, keyHash).finally(() => this.checking.delete(keyHash));
      this.checking.set(keyHash, pending);
    }
    return pending;
  }

  private async check(key: string, keyHash: string): Promise<KeyVerdict> {
    if (!(await this.takeTurn())) {
      return { kind: 'unchecked', reason: `${MAX_WAITING_CHECKS} API key checks are already waiting` };
    }
    let verdict: KeyVerdict;
    try {
      verdict = await this.ask(key);
    } finally {
      this.passTurn();
    }
    this.logger[verdict.kind === 'unchecked' ? 'warn' : 'debug']({ key: keyHash, verdict: verdict.kind, reason: verdict.kind === 'unchecked' ? verdict.reason : undefined }, 'API key checked');
    if (verdict.kind !== 'unchecked') this.remember(keyHash, verdict);
    return verdict;
  }

  /** Resolves true once this check may run, false when too many are waiting already. */
  private async takeTurn(): Promise<boolean> {
    if (this.running < CHECKS_AT_ONCE) {
      this.running++;
      return true;
    }
    if (this.waiting.length >= MAX_WAITING_CHECKS) return false;
    // The turn is handed over by the check that ends, so no newcomer can slip in between.
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    return true;
  }

  private passTurn(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }

  private async ask(key: string): Promise<KeyVerdict> {
    try {
      await this.client.forKey(key).request(PROBE);
      return { kind: 'accepted' };
    } catch (error) {
      if (error instanceof AuthenticationError) return { kind: 'refused' };
      // The key authenticated; it only lacks the read scope, which a session can live without.
      if (error instanceof PermissionError) return { kind: 'accepted' };
      return { kind: 'unchecked', reason: this.why(error) };
    }
  }

  private why(error: unknown): string {
    if (error instanceof ConnectionError) return error.message;
    if (error instanceof NotJsonError || (error instanceof NotFoundError && error.routeNotFound)) {
      return `${PROBE.method} ${PROBE.path} was answered ${error.status} ${error instanceof NotJsonError ? 'with a body that is not JSON' : "without the API's error body"}: SVC_BASE_URL=${this.client.baseUrl} probably points at something other than the workspace API`;
    }
    if (error instanceof ApiError && error.status !== undefined) return `the API answered ${PROBE.method} ${PROBE.path} with HTTP ${error.status}`;
    return error instanceof Error ? error.message : String(error);
  }

  private remember(keyHash: string, verdict: KeyVerdict): void {
    this.verdicts.set(keyHash, { verdict, until: Date.now() + (verdict.kind === 'accepted' ? ACCEPTED_FOR_MS : REFUSED_FOR_MS) });
    if (this.verdicts.size > MAX_VERDICTS) this.verdicts.delete(this.verdicts.keys().next().value!);
  }
}
