/** @module A counting semaphore: bounds how many instance applications run at once in-process. */
export class Semaphore {
  private available: number;
  private readonly waiters: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
    this.available = limit;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.available > 0) this.available -= 1;
    else await new Promise<void>((resolve) => this.waiters.push(resolve));
    try {
      return await work();
    } finally {
      // Hand the slot straight to the next waiter, so a newcomer cannot overtake it.
      const next = this.waiters.shift();
      if (next) next();
      else this.available += 1;
    }
  }
}
