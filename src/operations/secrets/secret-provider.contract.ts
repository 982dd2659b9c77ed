import { describe, expect, it } from 'vitest';
import type { SecretProvider } from './secret-provider.js';

/** Builds a provider holding exactly `secrets` (names and values as given). */
export type SecretProviderFactory = (
  secrets: Readonly<Record<string, string>>,
) => SecretProvider | Promise<SecretProvider>;

/** Values a provider must hand back unchanged (none ends with a newline: files trim one). */
const SAMPLES: Readonly<Record<string, string>> = {
  DB_PASS: 'hunter2-correct-horse',
  API_TOKEN: 'Bearer abc.def.ghi',
  'tls.key': '-----BEGIN KEY-----\nline two\n-----END KEY-----',
  'with-dash': '  spaces kept  ',
  unicode_1: 'pässwörd-密码-🔑',
  EQUALS: 'a=b=c; "quoted" \\ back',
  EMPTY: '',
};

/**
 * The behaviour every {@link SecretProvider} must have. Call it from a `*.test.ts` file with a
 * factory that returns a provider seeded with the given secrets.
 */
export function runSecretProviderContract(label: string, factory: SecretProviderFactory): void {
  describe(`SecretProvider contract: ${label}`, () => {
    it('has a non-empty name for messages', async () => {
      const provider = await factory({});
      expect(typeof provider.name).toBe('string');
      expect(provider.name.length).toBeGreaterThan(0);
    });

    it('returns each secret exactly as stored', async () => {
      const provider = await factory(SAMPLES);
      for (const [name, value] of Object.entries(SAMPLES)) {
        expect(await provider.get(name), name).toBe(value);
      }
    });

    it('answers undefined, never throws, for a secret it does not have', async () => {
      const provider = await factory({ PRESENT: 'value-1' });
      await expect(provider.get('ABSENT')).resolves.toBeUndefined();
      await expect(provider.get('present_')).resolves.toBeUndefined();
    });

    it('does not find inherited object members under their names', async () => {
      const provider = await factory({ PRESENT: 'value-1' });
      for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf']) {
        await expect(provider.get(name), name).resolves.toBeUndefined();
      }
    });

    it('answers undefined for names that are paths or otherwise unusual', async () => {
      const provider = await factory({ PRESENT: 'value-1' });
      for (const name of ['', '.', '..', '../PRESENT', 'a/PRESENT', './PRESENT', 'PRESENT/']) {
        await expect(provider.get(name), JSON.stringify(name)).resolves.toBeUndefined();
      }
    });

    it('is asynchronous and answers concurrent and repeated lookups consistently', async () => {
      const provider = await factory(SAMPLES);
      const pending = provider.get('DB_PASS');
      expect(pending).toBeInstanceOf(Promise);
      const names = Object.keys(SAMPLES);
      const values = await Promise.all([...names, ...names].map((name) => provider.get(name)));
      expect(values).toEqual([...Object.values(SAMPLES), ...Object.values(SAMPLES)]);
      expect(await pending).toBe(SAMPLES.DB_PASS);
    });
  });
}
