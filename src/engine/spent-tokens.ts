/**
 * Confirmation tokens are single-use: a token is recorded as spent before its request is sent.
 * A fleet shares the record through Redis, so a token sends once across every node.
 */
export interface SpentTokens {
  /** Records the token as spent until `expiresAt` (epoch ms); false when it already was. */
  spend(token: string, expiresAt: number): Promise<boolean>;
}

/** The record of one process: expired tokens are dropped as new ones are spent. */
export class MemorySpentTokens implements SpentTokens {
  private readonly spent = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  async spend(token: string, expiresAt: number): Promise<boolean> {
    const now = this.now();
    for (const [known, until] of this.spent) if (until <= now) this.spent.delete(known);
    if (this.spent.has(token)) return false;
    this.spent.set(token, expiresAt);
    return true;
  }
}
