/**
 * Small `Int32Array`s carved out of shared buffers. V8 keeps a typed array of more than 64 bytes in a
 * buffer of its own, allocated outside the heap: about 200 ns, plus the collector's work when it dies.
 * A view on a shared buffer costs about 20 ns. Engines that make such arrays at every job start or
 * resize (placements, nodes per job) take them from an arena; arrays of more than an eighth of a
 * buffer get a buffer of their own.
 *
 * Memory: a buffer (`chunk` elements) is freed when no view of it is left, so a long-lived array keeps
 * its buffer alive; with the default 1,024-element buffers that is at most 4 KiB per live array. The
 * views are zero-filled when handed out and never handed out twice.
 */
export class Int32Arena {
  private buffer: ArrayBuffer | null = null;
  private used = 0;

  constructor(private readonly chunk = 1024) {}

  /** A zero-filled array of `n` elements. */
  alloc(n: number): Int32Array {
    if (n * 8 > this.chunk) return new Int32Array(n);
    if (this.buffer === null || this.used + n > this.chunk) {
      this.buffer = new ArrayBuffer(this.chunk * 4);
      this.used = 0;
    }
    const a = new Int32Array(this.buffer, this.used * 4, n);
    this.used += n;
    return a;
  }
}
