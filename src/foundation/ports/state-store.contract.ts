import { describe, expect, it } from 'vitest';
import { GatewayError } from '../model/gateway-error.js';
import type { StateStore } from './state-store.js';

/**
 * The behaviour every {@link StateStore} must have. `factory` gives a fresh, empty store;
 * `reopen`, when the store is durable, closes it and opens the same storage again. Either may be
 * asynchronous (a store that loads what it holds before it is used).
 */
export function runStateStoreContract(
  name: string,
  factory: () => StateStore | Promise<StateStore>,
  reopen?: (store: StateStore) => StateStore | Promise<StateStore>,
): void {
  describe(`StateStore contract: ${name}`, () => {
    it('stores JSON values and bytes, per scope', async () => {
      const store = await factory();
      const doc = { n: 1.5, s: 'é', list: [1, 'two', null, true], nested: { a: { b: [] } } };
      store.set('a', 'k', doc);
      store.set('b', 'k', 'other scope');
      store.set('a', 'bytes', new Uint8Array([0, 1, 254, 255]));
      expect(store.get('a', 'k')).toEqual(doc);
      expect(store.get('b', 'k')).toBe('other scope');
      const bytes = store.get('a', 'bytes');
      expect(bytes).toBeInstanceOf(Uint8Array);
      expect([...(bytes as Uint8Array)]).toEqual([0, 1, 254, 255]);
      expect(store.get('a', 'missing')).toBeUndefined();
      expect(store.get('c', 'k')).toBeUndefined();
      store.close();
    });

    it('keeps a float vector exactly', async () => {
      const store = await factory();
      const vector = new Float32Array([0.1, -2.5e-8, 3.4e38, Math.PI]);
      store.set('v', 'x', new Uint8Array(vector.buffer));
      const back = store.get('v', 'x') as Uint8Array;
      const floats = new Float32Array(back.buffer.slice(back.byteOffset, back.byteOffset + back.byteLength));
      expect([...floats]).toEqual([...vector]);
      store.close();
    });

    it('copies: changing a value after set or get changes nothing stored', async () => {
      const store = await factory();
      const value = { list: [1] };
      store.set('s', 'k', value);
      value.list.push(2);
      const read = store.get('s', 'k') as { list: number[] };
      read.list.push(3);
      expect(store.get('s', 'k')).toEqual({ list: [1] });
      store.close();
    });

    it('replaces, deletes, counts and lists entries in key order', async () => {
      const store = await factory();
      store.set('s', 'b', 1);
      store.set('s', 'a', 2);
      store.set('s', 'c', 3);
      store.set('s', 'b', 10);
      store.delete('s', 'c');
      store.delete('s', 'never-there');
      expect(store.entries('s')).toEqual([
        ['a', 2],
        ['b', 10],
      ]);
      expect(store.count('s')).toBe(2);
      expect(store.count('empty')).toBe(0);
      expect(store.entries('empty')).toEqual([]);
      store.close();
    });

    it('reads and writes many at once', async () => {
      const store = await factory();
      store.setMany('m', [
        ['x', 1],
        ['y', { z: true }],
      ]);
      const found = store.getMany('m', ['x', 'y', 'nope']);
      expect([...found]).toEqual([
        ['x', 1],
        ['y', { z: true }],
      ]);
      store.setMany('m', []);
      expect(store.count('m')).toBe(2);
      store.close();
    });

    it('refuses calls after close', async () => {
      const store = await factory();
      store.close();
      expect(() => store.get('s', 'k')).toThrow(GatewayError);
    });

    if (reopen) {
      it('keeps everything across a restart', async () => {
        const store = await factory();
        store.set('s', 'k', { kept: [1, 2] });
        store.set('s', 'bytes', new Uint8Array([9, 8]));
        const again = await reopen(store);
        expect(again.get('s', 'k')).toEqual({ kept: [1, 2] });
        expect([...(again.get('s', 'bytes') as Uint8Array)]).toEqual([9, 8]);
        again.close();
      });
    }
  });
}
