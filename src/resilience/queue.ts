/**
 * The FIFO of waiters behind the semaphore and the token bucket: O(1) push,
 * shift and removal of a canceled waiter (lazy: it is skipped when reached).
 * @module
 */

interface Slot<T> {
  value: T;
  removed: boolean;
}

/** A first-in, first-out queue whose entries can be withdrawn. */
export class WaitQueue<T> {
  #items: Slot<T>[] = [];
  #head = 0;
  #size = 0;

  /** Live (not withdrawn) entries. */
  get size(): number {
    return this.#size;
  }

  /** Appends `value`; the returned function withdraws it (a no-op once it left the queue). */
  push(value: T): () => void {
    const slot: Slot<T> = { value, removed: false };
    this.#items.push(slot);
    this.#size++;
    return () => {
      if (slot.removed) return;
      slot.removed = true;
      this.#size--;
    };
  }

  /** The oldest live entry, without removing it. */
  peek(): T | undefined {
    this.#skipRemoved();
    return this.#items[this.#head]?.value;
  }

  /** Removes and returns the oldest live entry. */
  shift(): T | undefined {
    this.#skipRemoved();
    const slot = this.#items[this.#head];
    if (slot === undefined) return undefined;
    slot.removed = true;
    this.#size--;
    this.#head++;
    this.#compact();
    return slot.value;
  }

  #skipRemoved(): void {
    while (this.#head < this.#items.length && this.#items[this.#head]?.removed === true) this.#head++;
    this.#compact();
  }

  #compact(): void {
    // Drop the consumed prefix now and then so the array does not grow forever.
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }
}
