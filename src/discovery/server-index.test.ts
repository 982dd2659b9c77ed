import { describe, expect, it } from 'vitest';
import { makeSearchTool } from '../../test/support/test-tools.js';
import { ServerIndex } from './server-index.js';

describe('ServerIndex', () => {
  const stripe = [
    makeSearchTool({ id: 'stripe:create_charge', description: 'Create a charge.' }),
    makeSearchTool({ id: 'stripe:refund_payment', description: 'Refund a payment.' }),
  ];
  const fs = makeSearchTool({ id: 'fs:read_file', description: 'Read a file.' });

  it('scores namespaces by the union of their tools, the best one 1', () => {
    const index = new ServerIndex();
    for (const tool of [...stripe, fs]) index.upsert(tool);
    const scores = index.scores('refund the charge');
    expect(scores.get('stripe')).toBe(1);
    expect(scores.has('fs')).toBe(false);
    expect([...index.scores('read a file and refund it')].sort()).toEqual([
      ['fs', expect.any(Number)],
      ['stripe', expect.any(Number)],
    ]);
  });

  it('reads the namespace as a product name', () => {
    const index = new ServerIndex();
    for (const tool of [...stripe, fs]) index.upsert(tool);
    expect([...index.scores('stripe')]).toEqual([['stripe', 1]]);
  });

  it('tells nothing apart in a catalog of one namespace', () => {
    const index = new ServerIndex();
    for (const tool of stripe) index.upsert(tool);
    expect(index.scores('refund').size).toBe(0);
  });

  it('follows removals and tools that move to another namespace', () => {
    const index = new ServerIndex();
    for (const tool of [...stripe, fs]) index.upsert(tool);
    index.remove('stripe:refund_payment');
    expect(index.scores('refund').size).toBe(0);
    index.upsert({ ...fs, namespace: 'stripe', description: 'Refund a payment.' });
    expect(index.size).toBe(1);
    expect(index.scores('refund').size).toBe(0); // one namespace left
    index.upsert(makeSearchTool({ id: 'fs:write_file', description: 'Write a file.' }));
    expect([...index.scores('refund')]).toEqual([['stripe', 1]]);
    index.remove('unknown:tool');
    expect(index.size).toBe(2);
  });
});
