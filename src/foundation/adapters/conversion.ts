import type { Tool } from '../model/tool.js';

/**
 * What every format conversion returns: the converted value, plus one warning per feature it had to
 * drop or change. A lossy conversion never throws and never drops anything silently; the caller
 * decides whether the warnings matter (the CLI prints them, a surface may log them).
 */
export interface Conversion<T> {
  value: T;
  warnings: string[];
}

/**
 * Collects the warnings of one conversion. Warnings name the tool and the format once (the
 * subject), then the feature; a feature met at several places of a schema is one warning listing
 * every place (JSON Pointers), so a big schema cannot flood the output with near-duplicates.
 */
export class WarningCollector {
  readonly #subject: string;
  readonly #features = new Map<string, string[]>();

  /** `subject` names the tool and the target format, e.g. `time:now (openai strict)`. */
  constructor(subject: string) {
    this.#subject = subject;
  }

  /** Records that `feature` was dropped or changed, at `pointer` (a JSON Pointer) when given. */
  add(feature: string, pointer?: string): void {
    const places = this.#features.get(feature) ?? [];
    if (pointer !== undefined) {
      const place = pointer === '' ? '/' : pointer;
      if (!places.includes(place)) places.push(place);
    }
    this.#features.set(feature, places);
  }

  /** Takes over the warnings of another collector (a sub-conversion that was kept). */
  merge(other: WarningCollector): void {
    for (const [feature, places] of other.#features) {
      if (places.length === 0) this.add(feature);
      for (const place of places) this.add(feature, place);
    }
  }

  /** The warnings, one line each, in the order their features were first met. */
  list(): string[] {
    return [...this.#features].map(([feature, places]) =>
      places.length === 0
        ? `${this.#subject}: ${feature}`
        : `${this.#subject}: ${feature} at ${places.join(', ')}`,
    );
  }
}

/** The JSON Pointer of `key` under `pointer` (RFC 6901 escaping). */
export function childPointer(pointer: string, ...keys: (string | number)[]): string {
  return keys.reduce<string>(
    (acc, key) => `${acc}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`,
    pointer,
  );
}

/** Tool fields some formats have no place for. */
export type PortableToolField = 'title' | 'inputSchema' | 'outputSchema' | 'annotations';

/**
 * One warning naming the fields of `tool` (among `fields`) that a format cannot carry. Catalog-only
 * data (tags, metadata, examples, notes, origin) is not reported: no provider format has a place
 * for it and it is not part of the tool's contract with a model.
 */
export function warnDroppedFields(
  tool: Pick<Tool, PortableToolField>,
  fields: readonly PortableToolField[],
  warnings: WarningCollector,
): void {
  const present = fields.filter((field) =>
    field === 'annotations'
      ? Object.values(tool.annotations ?? {}).some((v) => v !== undefined)
      : tool[field] !== undefined,
  );
  if (present.length > 0) warnings.add(`${present.join(', ')} cannot be expressed in this format; dropped`);
}
