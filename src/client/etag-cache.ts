/** The last ETag and body per URL and credentials, for If-None-Match; least recently used goes first. */
export class EtagCache {
  readonly #entries = new Map<string, { etag: string; text: string }>();

  constructor(private readonly capacity: number) {}

  get(key: string): { etag: string; text: string } | undefined {
    const entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, etag: string, text: string): void {
    this.#entries.delete(key);
    this.#entries.set(key, { etag, text });
    while (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
