import type { Refusal } from '../../access.js';

/** What a refused body is told to wait before trying again. */
const BUSY_RETRY_AFTER_S = '2';

/** What a lease already released refuses: its request was answered, and more of its body is not held. */
const ANSWERED: Refusal = { status: 400, message: 'The request was already answered', headers: { connection: 'close' } };

/** Bytes of one request's body held under the budget until `release`; `grow` asks for more as they arrive. */
export interface BodyLease {
  /** Takes `bytes` more; when a bound would be passed, takes nothing and says why, as `take` does. */
  grow(bytes: number): Refusal | undefined;
  release(): void;
}

/**
 * The request body bytes a server holds at once: in total, and per client address (see
 * ClientAddresses.share), so that no client, however many connections it opens, can hold more
 * than its share of memory, and all of them together no more than the total. A body is counted
 * from its declared length before a byte of it is read, then as it arrives.
 */
export class BodyBudget {
  private used = 0;
  private readonly byAddress = new Map<string, number>();

  constructor(
    readonly total: number,
    readonly perAddress: number,
  ) {}

  /** A lease of `bytes` for `address`, or why there is none (429: this address holds its share; 503: the server holds its total). */
  take(address: string, bytes: number): BodyLease | Refusal {
    const refusal = this.refusal(address, bytes);
    if (refusal) return refusal;
    let held = 0;
    let released = false;
    const lease: BodyLease = {
      grow: (more) => {
        const refusal = released ? ANSWERED : this.refusal(address, more);
        if (refusal) return refusal;
        this.add(address, more);
        held += more;
        return undefined;
      },
      release: () => {
        if (released) return;
        released = true;
        this.add(address, -held);
      },
    };
    lease.grow(bytes);
    return lease;
  }

  /** Bytes held now, in total or for one address. */
  held(address?: string): number {
    return address === undefined ? this.used : (this.byAddress.get(address) ?? 0);
  }

  private refusal(address: string, bytes: number): Refusal | undefined {
    if ((this.byAddress.get(address) ?? 0) + bytes > this.perAddress) {
      return {
        status: 429,
        message: `Too many request bytes in flight from your address: at most ${this.perAddress} at once; wait for your other requests to finish`,
        headers: { 'retry-after': BUSY_RETRY_AFTER_S, connection: 'close' },
      };
    }
    if (this.used + bytes > this.total) {
      return {
        status: 503,
        message: `Service busy: the server holds ${this.total} bytes of request bodies at most; try again shortly`,
        headers: { 'retry-after': BUSY_RETRY_AFTER_S, connection: 'close' },
      };
    }
    return undefined;
  }

  private add(address: string, bytes: number): void {
    this.used += bytes;
    const now = (this.byAddress.get(address) ?? 0) + bytes;
    if (now > 0) this.byAddress.set(address, now);
    else this.byAddress.delete(address);
  }
}
