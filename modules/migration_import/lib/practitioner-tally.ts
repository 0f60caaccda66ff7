/**
 * The practitioner names an import's appointments carry, counted for the preview's practitioner
 * notice: which practitioners the import books with, which it would create. Bounded: past `limit`
 * distinct names, further new names are only counted, so a source of a million encounters, each
 * naming someone else, still previews in bounded memory.
 */
export class PractitionerTally {
  readonly #counts = new Map<string, number>();
  readonly #limit: number;
  #untracked = 0;

  constructor(limit = 1000) {
    this.#limit = limit;
  }

  add(name: string): void {
    const count = this.#counts.get(name);
    if (count !== undefined) this.#counts.set(name, count + 1);
    else if (this.#counts.size < this.#limit) this.#counts.set(name, 1);
    else this.#untracked++;
  }

  /** Each name with its number of appointments, in the order first seen. */
  names(): Array<{ name: string; appointments: number }> {
    return [...this.#counts].map(([name, appointments]) => ({ name, appointments }));
  }

  /** Appointments whose names came after `limit` distinct ones, counted but not listed. */
  get untracked(): number {
    return this.#untracked;
  }
}
