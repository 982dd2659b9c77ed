/** One token bucket a call needs a token from. */
export interface BucketRequest {
  /** Identifies the bucket among all gateways (rule, and the identity and tool it counts). */
  key: string;
  capacity: number;
  perMinute: number;
}

/**
 * Token buckets kept outside this process, shared by several gateways (Redis), so that a limit
 * holds for all of them together. `take` is atomic: it takes one token from every bucket when
 * each has one, else takes none and says how long each must wait. It rejects when the store
 * cannot be reached; the rate limiter then falls back to its own buckets.
 */
export interface SharedBuckets {
  /** Per bucket, in order: 0 when it had a token, else the milliseconds until it has one. */
  take(buckets: readonly BucketRequest[]): Promise<number[]>;
}
