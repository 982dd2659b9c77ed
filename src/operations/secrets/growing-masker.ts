import { createSecretMasker } from './secret-masker.js';

/** A secret masker that learns more secrets later (those of a reloaded config). */
export interface GrowingMasker {
  (text: string): string;
  /** Masks `values` too from now on; the values known before stay masked. */
  add(values: readonly string[]): void;
}

/** A masker of `initial`, to which `add` adds values. */
export function growingMasker(initial: readonly string[]): GrowingMasker {
  const values = new Set(initial);
  let mask = createSecretMasker([...values]);
  return Object.assign((text: string) => mask(text), {
    add(more: readonly string[]) {
      const size = values.size;
      for (const value of more) values.add(value);
      if (values.size !== size) mask = createSecretMasker([...values]);
    },
  });
}
